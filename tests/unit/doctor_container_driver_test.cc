// The driver-in-containers checks on fixture copies whose nodes are real character devices:
// missing /dev/char links, groups a rootless container drops, a CDI spec that mounts another
// driver version's libraries than the loaded module, or files that are gone.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "doctor/checks.h"
#include "test_support.h"

namespace anygpu {
namespace {

struct Host {
  test::TempDir tmp;
  std::string root;
  Inventory inv;
  Host() : root(tmp / "root") {
    test::copy_tree(test::fixture_host("h100-8x"), root);
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

std::vector<Finding> with_id(const std::vector<Finding>& fs, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : fs)
    if (f.id == id) out.push_back(f);
  return out;
}

std::string spec_mounting(const std::string& version) {
  return "cdiVersion: \"0.5.0\"\nkind: nvidia.com/gpu\ndevices:\n  - name: \"0\"\n"
         "    containerEdits:\n      deviceNodes: [{path: /dev/nvidia0}]\ncontainerEdits:\n"
         "  mounts:\n    - {hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so." +
         version + ", containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so." + version +
         ", options: [ro, nosuid, nodev, bind]}\n";
}

}  // namespace

TEST(DoctorContainerDriver, NodesWithoutDevCharLinks) {
  Host h;
  auto f = with_id(h.run(), "containers.dev-char-missing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].title.find("2 device node(s)"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].fix.find("ln -s ../nvidia0 /dev/char/195:0"), std::string::npos) << f[0].fix;
  ASSERT_EQ(::mkdir((h.root + "/dev/char").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("../nvidia0", (h.root + "/dev/char/195:0").c_str()), 0);
  ASSERT_EQ(::symlink("../nvidiactl", (h.root + "/dev/char/195:255").c_str()), 0);
  EXPECT_TRUE(with_id(h.run(), "containers.dev-char-missing").empty());
}

TEST(DoctorContainerDriver, GroupOnlyNodesAreLostByRootlessContainers) {
  Host h;
  auto f = with_id(h.run(1000, {1000, 44}), "containers.rootless-groups");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].fix.find("--group-add keep-groups"), std::string::npos);
  // Root, or a user outside the group (another check's business), gets no such finding.
  EXPECT_TRUE(with_id(h.run(0, {}), "containers.rootless-groups").empty());
  EXPECT_TRUE(with_id(h.run(1000, {1000}), "containers.rootless-groups").empty());
}

TEST(DoctorContainerDriver, SpecOfAnotherDriverVersionIsStale) {
  Host h;
  test::write_file(h.root + "/etc/cdi/nvidia.yaml", spec_mounting("535.104.05"));
  auto f = with_id(h.run(), "containers.cdi-driver-stale");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].title.find("535.104.05"), std::string::npos);
  EXPECT_NE(f[0].title.find("550.90.07"), std::string::npos);
  test::write_file(h.root + "/etc/cdi/nvidia.yaml", spec_mounting("550.90.07"));
  EXPECT_TRUE(with_id(h.run(), "containers.cdi-driver-stale").empty());
}

TEST(DoctorContainerDriver, SpecMountingFilesThatAreGone) {
  Host h;
  test::write_file(h.root + "/etc/cdi/nvidia.yaml", spec_mounting("550.90.07"));
  auto f = with_id(h.run(), "containers.cdi-mounts-gone");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].detail.find("libcuda.so.550.90.07"), std::string::npos) << f[0].detail;
  test::write_file(h.root + "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07", "elf");
  EXPECT_TRUE(with_id(h.run(), "containers.cdi-mounts-gone").empty());
}

}  // namespace anygpu
