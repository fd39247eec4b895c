// The driver-in-containers checks on fixture copies that carry the vendor's mock user space
// (tests/e2e/driver/make_driver_host.sh) and whose nodes are real character devices: missing
// /dev/char links, groups a rootless container drops, a CDI spec that mounts another driver
// version's libraries than the loaded module, or files that are gone.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>

#include "doctor/checks.h"
#include "finding_test_support.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

using test::with_code;

struct Host {
  test::TempDir tmp;
  std::string root;
  Inventory inv;
  Host() : root(tmp / "root") {
    auto make = cat({ANYGPU_SOURCE_DIR, "/tests/e2e/driver/make_driver_host.sh nvidia ",
                     test::fixture_host("h100-8x"), " ", root, " >/dev/null"});
    EXPECT_EQ(std::system(make.c_str()), 0) << make;
    // Two real nodes (the suite runs as root: mknod); the others stay plain files.
    for (auto [name, minor] : {std::pair{"nvidia0", 0}, std::pair{"nvidiactl", 255}}) {
      auto p = root + "/dev/" + name;
      ::unlink(p.c_str());
      EXPECT_EQ(::mknod(p.c_str(), S_IFCHR | 0660, makedev(195, minor)), 0) << p;
      EXPECT_EQ(::chown(p.c_str(), 0, 44), 0);
    }
  }
  std::vector<Finding> run(uid_t uid = 0, std::vector<gid_t> gids = {}) {
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    HostRoot host(o);
    inv = test::probe_root(root);
    DoctorContext ctx(host, inv);
    ctx.uid = uid;
    ctx.gids = std::move(gids);
    return check_container_driver(ctx);
  }
};

// An nvidia.com/gpu spec mounting these host libraries.
std::string spec_mounting(const std::vector<std::string>& files) {
  std::string out =
      "cdiVersion: \"0.5.0\"\nkind: nvidia.com/gpu\ndevices:\n  - name: \"0\"\n"
      "    containerEdits:\n      deviceNodes: [{path: /dev/nvidia0}]\ncontainerEdits:\n"
      "  mounts:\n";
  for (const auto& f : files)
    out += cat({"    - {hostPath: /usr/lib/x86_64-linux-gnu/", f,
                ", containerPath: /usr/lib/x86_64-linux-gnu/", f,
                ", options: [ro, nosuid, nodev, bind]}\n"});
  return out;
}
std::string spec_mounting_libcuda(const std::string& version) {
  return spec_mounting(std::vector<std::string>{"libcuda.so." + version});
}

}  // namespace

TEST(DoctorContainerDriver, NodesWithoutDevCharLinks) {
  Host h;
  auto f = with_code(h.run(), "containers.dev-char-missing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("2 device node(s)"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].action.find("ln -s ../nvidia0 /dev/char/195:0"), std::string::npos) << f[0].action;
  ASSERT_EQ(::mkdir((h.root + "/dev/char").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("../nvidia0", (h.root + "/dev/char/195:0").c_str()), 0);
  ASSERT_EQ(::symlink("../nvidiactl", (h.root + "/dev/char/195:255").c_str()), 0);
  EXPECT_TRUE(with_code(h.run(), "containers.dev-char-missing").empty());
}

TEST(DoctorContainerDriver, GroupOnlyNodesAreLostByRootlessContainers) {
  Host h;
  auto f = with_code(h.run(1000, {1000, 44}), "containers.rootless-groups");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].action.find("--group-add keep-groups"), std::string::npos);
  // Root, or a user outside the group (another check's business), gets no such finding.
  EXPECT_TRUE(with_code(h.run(0, {}), "containers.rootless-groups").empty());
  EXPECT_TRUE(with_code(h.run(1000, {1000}), "containers.rootless-groups").empty());
}

TEST(DoctorContainerDriver, SpecOfAnotherDriverVersionIsStale) {
  Host h;
  test::write_file(h.root + "/etc/cdi/nvidia.yaml", spec_mounting_libcuda("535.104.05"));
  auto f = with_code(h.run(), "containers.cdi-driver-stale");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("535.104.05"), std::string::npos);
  EXPECT_NE(f[0].message.find("550.90.07"), std::string::npos);
  test::write_file(h.root + "/etc/cdi/nvidia.yaml", spec_mounting_libcuda("550.90.07"));
  EXPECT_TRUE(with_code(h.run(), "containers.cdi-driver-stale").empty());
}

// Which libraries carry the module's version is what the registry's `{driver_version}`
// patterns find on the host: any of them (not libcuda alone) at another version is stale, and
// a library with a version of its own is not.
TEST(DoctorContainerDriver, AnyLibraryCarryingTheModuleVersionAndOnlyThose) {
  Host h;
  test::write_file(h.root + "/etc/cdi/nvidia.yaml",
                   spec_mounting({"libcuda.so.550.90.07", "libnvidia-ml.so.535.104.05"}));
  auto f = with_code(h.run(), "containers.cdi-driver-stale");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("mounts driver 535.104.05 files"), std::string::npos) << f[0].message;
  test::write_file(h.root + "/etc/cdi/nvidia.yaml",
                   spec_mounting({"libcuda.so.550.90.07", "libnvidia-egl-wayland.so.1.1.13",
                                  "libnvidia-ptxjitcompiler.so.550.90.07", "libcuda.so.1"}));
  EXPECT_TRUE(with_code(h.run(), "containers.cdi-driver-stale").empty());
}

// Without the driver's libraries on the host nothing says which files carry its version: no
// version verdict, and the old files' absence is the finding.
TEST(DoctorContainerDriver, HostWithoutDriverLibrariesJudgesOnlyWhatIsGone) {
  Host h;
  for (auto name : {"libcuda.so.550.90.07", "libnvidia-ml.so.550.90.07",
                    "libnvidia-ptxjitcompiler.so.550.90.07"})
    ::unlink((h.root + "/usr/lib/x86_64-linux-gnu/" + name).c_str());
  test::write_file(h.root + "/etc/cdi/nvidia.yaml", spec_mounting_libcuda("535.104.05"));
  auto fs = h.run();
  EXPECT_TRUE(with_code(fs, "containers.cdi-driver-stale").empty());
  EXPECT_EQ(with_code(fs, "containers.cdi-mounts-gone").size(), 1u);
}

TEST(DoctorContainerDriver, SpecMountingFilesThatAreGone) {
  Host h;
  test::write_file(h.root + "/etc/cdi/nvidia.yaml",
                   spec_mounting({"libcuda.so.550.90.07", "libnvidia-fbc.so.550.90.07"}));
  auto f = with_code(h.run(), "containers.cdi-mounts-gone");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("libnvidia-fbc.so.550.90.07"), std::string::npos) << f[0].evidence;
  EXPECT_EQ(f[0].evidence.find("libcuda.so.550.90.07"), std::string::npos) << f[0].evidence;
  test::write_file(h.root + "/usr/lib/x86_64-linux-gnu/libnvidia-fbc.so.550.90.07", "elf");
  EXPECT_TRUE(with_code(h.run(), "containers.cdi-mounts-gone").empty());
}

}  // namespace anygpu
