// The host's driver user space: resolved through the fixture's own ld.so.cache (written by
// ldconfig -r) and the vendor's directories, emitted as read-only CDI mounts with the hooks,
// and hostile host state (dangling links, look-alike libraries outside the vendor's
// directories, cache entries that climb out of the root) left out with a warning.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cdi/cdi.h"
#include "container/container_edits.h"
#include "container/driver_files.h"
#include "container/driver_source.h"
#include "launch/container_plan.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {

const std::string kLib = "/usr/lib/x86_64-linux-gnu";

// A fixture copy carrying the vendor's mock user space (tests/e2e/driver/make_driver_host.sh).
std::string driver_host(const test::TempDir& tmp, const std::string& vendor,
                        const std::string& fixture) {
  auto dest = tmp / vendor;
  auto cmd = cat({ANYGPU_SOURCE_DIR, "/tests/e2e/driver/make_driver_host.sh ", vendor, " ",
                  test::fixture_host(fixture), " ", dest, " >/dev/null"});
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dest;
}

DriverFiles resolve(const std::string& root, const std::string& vendor,
                    std::optional<std::string> version, std::string driver_root = "/") {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  HostRoot host(o);
  DriverFilesOptions opts;
  opts.driver_root = driver_root;
  opts.driver_version = std::move(version);
  return resolve_driver_files(host, *Registry::builtin().vendor(vendor), opts);
}

const DriverMount* mount_at(const DriverFiles& f, const std::string& container) {
  for (const auto& m : f.mounts)
    if (m.container_path == container) return &m;
  return nullptr;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool warned(const DriverFiles& f, const std::string& text) {
  for (const auto& w : f.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(DriverFiles, NvidiaLibrariesOfTheDriverVersionToolsFirmwareSockets) {
  test::TempDir tmp;
  auto root = driver_host(tmp, "nvidia", "h100-8x");
  auto f = resolve(root, "nvidia", "550.90.07");
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  // Real file and soname link, both backed by the real file.
  for (auto name : {"libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler"}) {
    auto real = cat({kLib, "/", name, ".so.550.90.07"});
    auto link = cat({kLib, "/", name, ".so.1"});
    ASSERT_TRUE(mount_at(f, real)) << real;
    ASSERT_TRUE(mount_at(f, link)) << link;
    EXPECT_EQ(mount_at(f, link)->host_path, real);
    EXPECT_EQ(mount_at(f, real)->kind, DriverFileKind::library);
  }
  EXPECT_FALSE(mount_at(f, kLib + "/libcuda.so"));  // the development link is not the driver's
  EXPECT_EQ(f.ld_folders, std::vector<std::string>{kLib});
  ASSERT_TRUE(mount_at(f, "/usr/bin/nvidia-smi"));
  EXPECT_EQ(mount_at(f, "/usr/bin/nvidia-smi")->kind, DriverFileKind::tool);
  EXPECT_TRUE(mount_at(f, "/lib/firmware/nvidia/550.90.07/gsp_ga10x.bin"));
  EXPECT_TRUE(mount_at(f, "/lib/firmware/nvidia/550.90.07/gsp_tu10x.bin"));
  EXPECT_TRUE(mount_at(f, "/run/nvidia-persistenced/socket"));
  // Nothing the host lacks is listed.
  EXPECT_FALSE(mount_at(f, "/run/nvidia-fabricmanager/socket"));
  EXPECT_FALSE(mount_at(f, "/usr/bin/nvidia-debugdump"));
}

TEST(DriverFiles, AnotherDriverVersionMatchesNothingAndUnknownIsWarned) {
  test::TempDir tmp;
  auto root = driver_host(tmp, "nvidia", "h100-8x");
  auto stale = resolve(root, "nvidia", "560.35.03");
  EXPECT_FALSE(mount_at(stale, kLib + "/libcuda.so.1"));
  EXPECT_FALSE(mount_at(stale, "/lib/firmware/nvidia/550.90.07/gsp_ga10x.bin"));
  auto unknown = resolve(root, "nvidia", std::nullopt);
  EXPECT_FALSE(mount_at(unknown, kLib + "/libcuda.so.1"));
  EXPECT_TRUE(warned(unknown, "driver version, which is unknown"));
  EXPECT_TRUE(mount_at(unknown, "/usr/bin/nvidia-smi"));  // tools do not need it
}

TEST(DriverFiles, TreesTheContainerSectionMountsAreNotMountedAgain) {
  test::TempDir tmp;
  // Ascend: container.mounts has /usr/local/Ascend/driver, /usr/local/dcmi, npu-smi.
  auto ascend = resolve(driver_host(tmp, "ascend", "ascend-910b-8x"), "ascend", std::nullopt);
  EXPECT_TRUE(ascend.warnings.empty()) << ascend.warnings.front();
  EXPECT_TRUE(ascend.mounts.empty()) << ascend.mounts.front().container_path;
  EXPECT_EQ(ascend.ld_folders,
            (std::vector<std::string>{"/usr/local/Ascend/driver/lib64",
                                      "/usr/local/Ascend/driver/lib64/driver", "/usr/local/dcmi"}));
  auto hygon = resolve(driver_host(tmp, "hygon", "hygon-dcu"), "hygon", std::nullopt);
  EXPECT_FALSE(mount_at(hygon, "/opt/hyhal/bin/hy-smi"));  // inside the tree already
  EXPECT_EQ(hygon.ld_folders, std::vector<std::string>{"/opt/hyhal/lib"});
}

TEST(DriverFiles, ALibraryOnlyInTheVendorsDirectoryIsFoundThere) {
  test::TempDir tmp;
  // The PPU SDK's folder is not in the host's ld.so.conf: found through library_dirs.
  auto f = resolve(driver_host(tmp, "thead", "thead-ppu-4x"), "thead", std::nullopt);
  ASSERT_TRUE(mount_at(f, "/usr/local/PPU_SDK/lib/libhgml.so"));
  EXPECT_TRUE(mount_at(f, "/usr/bin/ppu-smi"));
  EXPECT_EQ(f.ld_folders, std::vector<std::string>{"/usr/local/PPU_SDK/lib"});
}

TEST(DriverFiles, AVendorWithoutDriverFilesGetsNothing) {
  test::TempDir tmp;
  auto f = resolve(test::fixture_host("mi300x-8x"), "amd", std::nullopt);
  EXPECT_TRUE(f.mounts.empty());
  EXPECT_TRUE(f.ld_folders.empty());
}

TEST(DriverFiles, DriverRootIsMountedWithoutItsPrefix) {
  test::TempDir tmp;
  auto driver = driver_host(tmp, "nvidia", "h100-8x");
  auto host = tmp / "host";
  ASSERT_EQ(::mkdir(host.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((host + "/run").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((host + "/run/nvidia").c_str(), 0755), 0);
  ASSERT_EQ(::rename(driver.c_str(), (host + "/run/nvidia/driver").c_str()), 0);
  auto f = resolve(host, "nvidia", "550.90.07", "/run/nvidia/driver");
  auto* link = mount_at(f, kLib + "/libcuda.so.1");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->host_path, "/run/nvidia/driver" + kLib + "/libcuda.so.550.90.07");
  EXPECT_EQ(f.ld_folders, std::vector<std::string>{kLib});
  auto missing = resolve(host, "nvidia", "550.90.07", "/run/nvidia/none");
  EXPECT_TRUE(missing.mounts.empty());
  EXPECT_TRUE(warned(missing, "not a directory"));
}

TEST(DriverFiles, HostileStateIsLeftOutWithAWarning) {
  test::TempDir tmp;
  auto root = driver_host(tmp, "nvidia", "h100-8x");
  // A dangling soname link, and a look-alike outside every library directory that the
  // host's cache names (a conf entry for /opt/evil), in a directory anyone can write.
  ASSERT_EQ(::unlink((root + kLib + "/libnvidia-ml.so.550.90.07").c_str()), 0);
  ASSERT_EQ(std::system(cat({"mkdir -p -m 0777 ", root, "/opt/evil && cp ", root, kLib,
                             "/libcuda.so.550.90.07 ", root,
                             "/opt/evil/libnvidia-ptxjitcompiler.so.550.90.07 && rm ", root, kLib,
                             "/libnvidia-ptxjitcompiler.so.* && echo /opt/evil > ", root,
                             "/etc/ld.so.conf.d/evil.conf && ldconfig -r ", root, " 2>/dev/null"})
                            .c_str()),
            0);
  auto f = resolve(root, "nvidia", "550.90.07");
  EXPECT_TRUE(mount_at(f, kLib + "/libcuda.so.1"));  // the good one stays
  EXPECT_FALSE(mount_at(f, kLib + "/libnvidia-ml.so.1"));
  EXPECT_FALSE(mount_at(f, "/opt/evil/libnvidia-ptxjitcompiler.so.1"));
  EXPECT_FALSE(mount_at(f, "/opt/evil/libnvidia-ptxjitcompiler.so.550.90.07"));
  EXPECT_TRUE(warned(f, "outside the loader's and the vendor's library directories"));
  EXPECT_TRUE(warned(f, "writable by others")) << f.warnings.front();

  // A cache entry whose path climbs out of the root: the same bytes, the path rewritten.
  auto cache_path = root + "/etc/ld.so.cache";
  auto bytes = read_all(cache_path);
  std::string orig = kLib + "/libcuda.so.1";
  auto at = bytes.find(orig + '\0');
  ASSERT_NE(at, std::string::npos);
  std::string base = "/../../../../../../tmp/libcuda.so.1";
  std::string climb = "/" + std::string(orig.size() - base.size() - 1, 'x') + base;
  ASSERT_EQ(climb.size(), orig.size());
  bytes.replace(at, orig.size(), climb);
  test::write_file(cache_path, bytes);
  auto g = resolve(root, "nvidia", "550.90.07");
  EXPECT_FALSE(mount_at(g, climb));
  EXPECT_TRUE(warned(g, "not a plain absolute path")) << (g.warnings.empty() ? "" : g.warnings[0]);
  // A broken cache is ignored, not fatal: the vendor directories still count.
  test::write_file(cache_path, "glibc-ld.so.cache1.1 truncated");
  auto h = resolve(root, "nvidia", "550.90.07");
  EXPECT_FALSE(mount_at(h, kLib + "/libcuda.so.1"));
  EXPECT_TRUE(warned(h, "cache is ignored"));
  EXPECT_TRUE(mount_at(h, "/usr/bin/nvidia-smi"));
}

TEST(DriverFiles, CdiSpecMountsReadOnlyAndNamesTheHooks) {
  test::TempDir tmp;
  auto root = driver_host(tmp, "nvidia", "h100-8x");
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  HostRoot host(o);
  auto inv = test::probe_root(root);
  CdiGenerateOptions opts;
  opts.driver.hook_path = "/usr/bin/anygpu";
  auto text = generate_cdi_spec(host, inv, "nvidia", opts);
  ASSERT_TRUE(text) << text.error().message;
  auto spec = parse_cdi_spec(*text, "gen.yaml");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_TRUE(spec->risks.empty()) << spec->risks.front();
  auto doc = YAML::Load(*text);
  bool libcuda = false;
  for (const auto& m : doc["containerEdits"]["mounts"]) {
    EXPECT_EQ(m["options"][0].Scalar(), "ro");
    EXPECT_EQ(m["hostPath"].Scalar().rfind(root, 0), 0u) << m["hostPath"].Scalar();
    if (m["containerPath"].Scalar() == kLib + "/libcuda.so.1") libcuda = true;
  }
  EXPECT_TRUE(libcuda) << *text;
  const auto& hooks = doc["containerEdits"]["hooks"];
  ASSERT_EQ(hooks.size(), 2u) << *text;
  EXPECT_EQ(hooks[0]["hookName"].Scalar(), "createContainer");
  EXPECT_EQ(hooks[0]["path"].Scalar(), "/usr/bin/anygpu");
  EXPECT_EQ(
      hooks[0]["args"].as<std::vector<std::string>>(),
      (std::vector<std::string>{"anygpu", "cdi", "hook", "update-ldcache", "--folder", kLib}));
  EXPECT_EQ(hooks[1]["args"][3].Scalar(), "create-dev-char-links");

  // The host's own view (host-init) names the driver files as the host does.
  opts.host_view = true;
  auto own = generate_cdi_spec(host, inv, "nvidia", opts);
  ASSERT_TRUE(own);
  EXPECT_NE(own->find("hostPath: " + kLib + "/libcuda.so.550.90.07"), std::string::npos) << *own;
  EXPECT_EQ(own->find(root), std::string::npos);
}

TEST(DriverFiles, EveryConsumerGetsThemThroughTheSeam) {
  test::TempDir tmp;
  auto root = driver_host(tmp, "thead", "thead-ppu-4x");
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  HostRoot host(o);
  auto inv = test::probe_root(root);
  auto edits = container_edits(host, "thead", inv.of_vendor("thead"));
  ASSERT_TRUE(edits) << edits.error().message;
  bool lib = false;
  for (const auto& m : edits->common.mounts)
    if (m.container_path == "/usr/local/PPU_SDK/lib/libhgml.so") lib = m.read_only();
  EXPECT_TRUE(lib);
  EXPECT_EQ(edits->common.library_folders, std::vector<std::string>{"/usr/local/PPU_SDK/lib"});
  ASSERT_EQ(edits->common.hooks.size(), 2u);
  EXPECT_TRUE(is_anygpu_hook(edits->common.hooks[0]));
}

TEST(DriverFiles, CdiGenerateUnderADriverRoot) {
  test::TempDir tmp;
  auto driver = driver_host(tmp, "nvidia", "h100-8x");
  // The devices come from the host; the driver's files from its driver container's tree.
  auto host_dir = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x"), host_dir);
  ASSERT_EQ(std::system(cat({"mkdir -p ", host_dir, "/run/nvidia"}).c_str()), 0);
  ASSERT_EQ(::rename(driver.c_str(), (host_dir + "/run/nvidia/driver").c_str()), 0);
  HostOptions o;
  o.root = host_dir;
  o.load_libraries = false;
  HostRoot host(o);
  auto inv = test::probe_root(host_dir);
  CdiGenerateOptions opts;
  opts.host_view = true;
  opts.driver = {"/run/nvidia/driver", "/usr/bin/anygpu"};
  auto text = generate_cdi_spec(host, inv, "nvidia", opts);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("hostPath: /run/nvidia/driver" + kLib +
                       "/libcuda.so.550.90.07\n"
                       "      containerPath: " +
                       kLib + "/libcuda.so.1"),
            std::string::npos)
      << *text;
  // The default root has no driver files on this host: no mounts, no hooks.
  opts.driver = {"/", "/usr/bin/anygpu"};
  auto plain = generate_cdi_spec(host, inv, "nvidia", opts);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->find("libcuda"), std::string::npos);
  EXPECT_EQ(plain->find("hooks:"), std::string::npos);
}

TEST(DriverFiles, WithoutASpecTheLoaderPathStandsInForTheHook) {
  EXPECT_EQ(loader_path_without_hook({kLib, "/usr/local/dcmi", "/usr/lib", "/opt/hyhal/lib"}),
            "/usr/local/dcmi:/opt/hyhal/lib");
  EXPECT_EQ(loader_path_without_hook({kLib}), "");
  test::TempDir tmp;
  auto root = driver_host(tmp, "thead", "thead-ppu-4x");
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  HostRoot host(o);
  auto inv = test::probe_root(root);
  Selection sel;
  sel.vendor = "thead";
  for (const auto* d : inv.of_vendor("thead")) sel.devices.push_back(*d);
  HostFacts facts;
  facts.root_prefix = root;
  facts.engines_on_path = {"podman"};
  facts.cwd = "/work";
  auto edits = container_edits(host, "thead", sel.devices);
  ASSERT_TRUE(edits);
  facts.edits = std::move(*edits);
  LaunchOptions lo;
  lo.image = "localhost/img";
  auto plan = plan_container(sel, lo, facts, {{"LD_LIBRARY_PATH", "/mine"}}, {"true"});
  ASSERT_TRUE(plan) << plan.error().message;
  auto argv = join(plan->argv, " ");
  EXPECT_NE(argv.find("dst=/usr/local/PPU_SDK/lib/libhgml.so,ro"), std::string::npos) << argv;
  EXPECT_NE(argv.find("-e LD_LIBRARY_PATH=/mine:/usr/local/PPU_SDK/lib"), std::string::npos)
      << argv;
  for (const auto& n : plan->notes) EXPECT_EQ(n.find("needs a CDI spec"), std::string::npos) << n;
  // With CDI names the spec's hook does it: no loader path.
  facts.cdi_names = std::vector<std::string>(sel.devices.size(), "alibabacloud.com/ppu=0");
  auto cdi = plan_container(sel, lo, facts, {}, {"true"});
  ASSERT_TRUE(cdi);
  EXPECT_EQ(join(cdi->argv, " ").find("LD_LIBRARY_PATH"), std::string::npos);
}

// The driver's user space in a directory the host's loader is configured with but neither
// the standard nor the vendor's (GKE and driver containers put it in /usr/local/nvidia/lib64,
// as a real H200 host in tests/captures/h200-vm does): trusted as the loader trusts it, unless
// others can change the directory.
TEST(DriverFiles, LoaderConfiguredDirectoryIsTrustedOnlyWhenOnlyRootCanChangeIt) {
  test::TempDir tmp;
  auto root = driver_host(tmp, "nvidia", "h100-8x");
  const std::string gke = "/usr/local/nvidia/lib64";
  ASSERT_EQ(std::system(cat({"mkdir -p ", root, gke, " && mv ", root, kLib, "/lib*.so* ", root, gke,
                             "/ && echo ", gke, " > ", root,
                             "/etc/ld.so.conf.d/nvidia.conf && ldconfig -r ", root})
                            .c_str()),
            0);
  auto f = resolve(root, "nvidia", "550.90.07");
  EXPECT_FALSE(warned(f, "outside the loader's")) << f.warnings.front();
  ASSERT_NE(mount_at(f, gke + "/libcuda.so.1"), nullptr);
  EXPECT_EQ(mount_at(f, gke + "/libcuda.so.1")->host_path, gke + "/libcuda.so.550.90.07");
  EXPECT_NE(mount_at(f, gke + "/libnvidia-ml.so.550.90.07"), nullptr);
  EXPECT_NE(std::find(f.ld_folders.begin(), f.ld_folders.end(), gke), f.ld_folders.end());

  ASSERT_EQ(::chmod((root + gke).c_str(), 0777), 0);
  auto open = resolve(root, "nvidia", "550.90.07");
  EXPECT_EQ(mount_at(open, gke + "/libcuda.so.1"), nullptr);
  EXPECT_TRUE(warned(open, "writable by others"));
}

}  // namespace anygpu
