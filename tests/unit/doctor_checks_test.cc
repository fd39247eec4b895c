// The host checks on damaged copies of the fixture hosts: driver not bound, device nodes this
// user cannot open, missing or stale container support, a kernel older than ROCm supports, a
// low open-file limit — and the healthy fixtures produce none of them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cdi/cdi.h"
#include "doctor/checks.h"
#include "doctor/doctor.h"
#include "finding_test_support.h"
#include "test_support.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace anygpu {
namespace {

using test::TempDir;
using test::with_code;

struct Host {
  TempDir tmp;
  std::string root;
  explicit Host(const std::string& fixture) : root(tmp / "root") {
    test::copy_tree(test::fixture_host(fixture), root);
  }
  std::vector<Finding> run(std::vector<Finding> (*check)(const DoctorContext&), uid_t uid = 0,
                           std::vector<gid_t> gids = {},
                           std::optional<uint64_t> nofile = std::nullopt) {
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    HostRoot host(o);
    inv = test::probe_root(root);
    DoctorContext ctx(host, inv);
    ctx.uid = uid;
    ctx.gids = std::move(gids);
    ctx.nofile_soft = nofile;
    return check(ctx);
  }
  Inventory inv;
};

std::string dump(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs)
    s += f.code + ": " + f.message + "\n  " + f.evidence + "\n  fix: " + f.action + "\n";
  return s;
}

TEST(DoctorDriver, UnboundDeviceIsAnErrorWithTheModuleToLoad) {
  Host h("h100-8x");
  EXPECT_TRUE(with_code(h.run(check_drivers), "driver.not-loaded").empty());
  fs::remove(h.root + "/sys/bus/pci/devices/0000:18:00.0/driver");
  auto f = with_code(h.run(check_drivers), "driver.not-loaded");
  ASSERT_EQ(f.size(), 1u) << dump(f);
  EXPECT_EQ(f[0].severity, Severity::error);
  EXPECT_NE(f[0].evidence.find("0000:18:00.0"), std::string::npos) << f[0].evidence;
  EXPECT_NE(f[0].action.find("sudo modprobe nvidia"), std::string::npos);
}

TEST(DoctorDriver, ForeignDriverAndUnreadableVersion) {
  Host h("mi300x-8x");
  EXPECT_TRUE(with_code(h.run(check_drivers), "driver.foreign").empty());
  // Rebind the first GPU to vfio-pci: a passthrough host.
  std::string bus;
  for (const auto& d : h.inv.devices)
    if (d.vendor == "amd" && bus.empty()) bus = d.pci.address.str();
  ASSERT_FALSE(bus.empty());
  auto link = h.root + "/sys/bus/pci/devices/" + bus + "/driver";
  fs::remove(link);
  fs::create_directories(h.root + "/sys/bus/pci/drivers/vfio-pci");
  test::make_symlink("../../../bus/pci/drivers/vfio-pci", link);
  auto found = h.run(check_drivers);
  auto foreign = with_code(found, "driver.foreign");
  ASSERT_EQ(foreign.size(), 1u) << dump(found);
  EXPECT_NE(foreign[0].message.find("vfio-pci"), std::string::npos);
  // The amdgpu version file gone: the version cannot be read.
  fs::remove(h.root + "/sys/module/amdgpu/version");
  auto nov = with_code(h.run(check_drivers), "driver.version-unreadable");
  ASSERT_EQ(nov.size(), 1u);
  EXPECT_NE(nov[0].evidence.find("/sys/module/amdgpu/version"), std::string::npos)
      << nov[0].evidence;
}

TEST(DoctorDeviceAccess, RenderGroupNamedWithTheUsermodFix) {
  Host h("mi300x-8x");
  gid_t gid = ::getgid() == 0 ? 4242 : ::getgid();
  // Nodes rw for their group only, owned by a "render" group this user is not in.
  for (auto& e : fs::recursive_directory_iterator(h.root + "/dev")) {
    if (!e.is_regular_file()) continue;
    ASSERT_EQ(::chmod(e.path().c_str(), 0660), 0);
    if (::getuid() == 0) {
      ASSERT_EQ(::chown(e.path().c_str(), 0, gid), 0);
    }
  }
  test::write_file(h.root + "/etc/group",
                   "root:x:0:\nvideo:x:44:\nrender:x:" + std::to_string(gid) + ":\n");
  auto found = h.run(check_device_access, 12345, {12345});
  auto denied = with_code(found, "devices.no-access");
  ASSERT_EQ(denied.size(), 1u) << dump(found);
  EXPECT_EQ(denied[0].severity, Severity::error);
  EXPECT_NE(denied[0].evidence.find("/dev/kfd"), std::string::npos) << denied[0].evidence;
  EXPECT_NE(denied[0].evidence.find("/dev/dri/renderD128"), std::string::npos);
  EXPECT_EQ(denied[0].action.rfind("sudo usermod -aG render $USER", 0), 0u) << denied[0].action;
  // In the group: fine. Root: fine.
  EXPECT_TRUE(
      with_code(h.run(check_device_access, 12345, {12345, gid}), "devices.no-access").empty());
  EXPECT_TRUE(with_code(h.run(check_device_access, 0, {}), "devices.no-access").empty());
  // 0600 nodes: no group grants access, the fix is a udev rule.
  for (auto& e : fs::recursive_directory_iterator(h.root + "/dev"))
    if (e.is_regular_file()) ::chmod(e.path().c_str(), 0600);
  denied = with_code(h.run(check_device_access, 12345, {12345, gid}), "devices.no-access");
  ASSERT_EQ(denied.size(), 1u);
  EXPECT_NE(denied[0].action.find("udev"), std::string::npos) << denied[0].action;
}

TEST(DoctorDeviceAccess, AscendNodesNameHwHiAiUser) {
  Host h("ascend-910b-8x");
  size_t changed = 0;
  for (auto& e : fs::recursive_directory_iterator(h.root + "/dev"))
    if (e.is_regular_file()) ::chmod(e.path().c_str(), 0660), ++changed;
  ASSERT_GT(changed, 0u);
  auto denied = with_code(h.run(check_device_access, 12345, {12345}), "devices.no-access");
  ASSERT_EQ(denied.size(), 1u) << dump(denied);
  EXPECT_NE(denied[0].action.find("usermod -aG HwHiAiUser"), std::string::npos) << denied[0].action;
}

TEST(DoctorDeviceAccess, MissingUvmNodeIsAnError) {
  Host h("h100-8x");
  EXPECT_TRUE(with_code(h.run(check_device_access), "devices.node-missing").empty());
  fs::remove(h.root + "/dev/nvidia-uvm");
  auto f = with_code(h.run(check_device_access), "devices.node-missing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("/dev/nvidia-uvm"), std::string::npos);
  EXPECT_NE(f[0].action.find("nvidia-modprobe"), std::string::npos);
}

TEST(DoctorContainers, ToolkitAndCdiSpecMissing) {
  Host nv("h100-8x");
  auto f = with_code(nv.run(check_containers), "containers.toolkit-missing");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].action.find("nvidia-container-toolkit"), std::string::npos);
  fs::create_directories(nv.root + "/etc/nvidia-container-runtime");
  EXPECT_TRUE(with_code(nv.run(check_containers), "containers.toolkit-missing").empty());

  Host amd("mi300x-8x");
  auto c = with_code(amd.run(check_containers), "containers.cdi-missing");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0].message.find("amd.com/gpu"), std::string::npos);
  // Without a container engine on the host it is only worth knowing; with one, a warning.
  EXPECT_EQ(c[0].severity, Severity::info);
  test::write_file(amd.root + "/usr/bin/podman", "");
  c = with_code(amd.run(check_containers), "containers.cdi-missing");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].severity, Severity::warning);
}

// These need read_cdi_specs (src/cdi): they pass once it reads /etc/cdi.
TEST(DoctorContainers, CdiSpecCoveringTheVendorAndAStaleOne) {
  Host amd("mi300x-8x");
  test::write_file(amd.root + "/etc/cdi/amd.json",
                   R"({"cdiVersion": "0.5.0", "kind": "amd.com/gpu", "devices": [
  {"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD128"}]}},
  {"name": "9", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD200"}]}}],
 "containerEdits": {"deviceNodes": [{"path": "/dev/kfd"}]}})");
  auto found = amd.run(check_containers);
  EXPECT_TRUE(with_code(found, "containers.cdi-missing").empty()) << dump(found);
  auto stale = with_code(found, "containers.cdi-stale");
  ASSERT_EQ(stale.size(), 1u) << dump(found);
  EXPECT_EQ(stale[0].severity, Severity::error);
  EXPECT_NE(stale[0].evidence.find("amd.com/gpu=9: /dev/dri/renderD200"), std::string::npos)
      << stale[0].evidence;
  EXPECT_EQ(stale[0].evidence.find("renderD128"), std::string::npos) << "present nodes are fine";
}

TEST(DoctorContainers, BrokenSpecIsAnErrorAndDoesNotHideTheOthers) {
  Host amd("mi300x-8x");
  test::write_file(amd.root + "/etc/cdi/broken.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": ");
  test::write_file(amd.root + "/etc/cdi/amd.json",
                   R"({"cdiVersion": "0.5.0", "kind": "amd.com/gpu", "devices": [
  {"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD128"}]}}]})");
  auto found = amd.run(check_containers);
  auto bad = with_code(found, "containers.cdi-unreadable");
  ASSERT_EQ(bad.size(), 1u) << dump(found);
  EXPECT_NE(bad[0].evidence.find("/etc/cdi/broken.json"), std::string::npos) << bad[0].evidence;
  EXPECT_TRUE(with_code(found, "containers.cdi-missing").empty()) << dump(found);
}

// One file per vendor everywhere: the fixes name /etc/cdi/anygpu-<vendor>.yaml (the file
// host-init writes) with --vendor, and run as printed on a host with two vendors.
TEST(DoctorContainers, FixesWriteOneFilePerVendorAndRunAsPrinted) {
  Host h("workstation-mixed");
  auto found = h.run(check_containers);
  auto nv = with_code(found, "containers.toolkit-missing");
  auto amd = with_code(found, "containers.cdi-missing");
  ASSERT_EQ(nv.size(), 1u) << dump(found);
  ASSERT_EQ(amd.size(), 1u) << dump(found);
  const std::string nv_fix =
      "sudo anygpu cdi generate --vendor nvidia --output "
      "/etc/cdi/anygpu-nvidia.yaml";
  const std::string amd_fix =
      "sudo anygpu cdi generate --vendor amd --output "
      "/etc/cdi/anygpu-amd.yaml";
  EXPECT_NE(nv[0].action.find(nv_fix), std::string::npos) << nv[0].action;
  EXPECT_EQ(amd[0].action, amd_fix);
  for (const auto& f : found) {
    EXPECT_EQ(f.action.find("/etc/cdi/anygpu.yaml"), std::string::npos) << f.action;
    EXPECT_EQ(f.action.find("/etc/cdi/nvidia.yaml"), std::string::npos) << f.action;
  }
  // As printed, beneath the copy's root: both specs, and the findings are gone.
  for (const auto& fix : {nv_fix, amd_fix}) {
    auto args = fix.substr(std::string("sudo anygpu ").size());
    auto at = args.find("/etc/cdi/");
    auto cmd = cat({test::anygpu_binary(), " -q --root ", h.root, " ", args.substr(0, at), h.root,
                    args.substr(at)});
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  found = h.run(check_containers);
  EXPECT_TRUE(with_code(found, "containers.toolkit-missing").empty()) << dump(found);
  EXPECT_TRUE(with_code(found, "containers.cdi-missing").empty()) << dump(found);
  EXPECT_TRUE(with_code(found, "containers.cdi-duplicate").empty()) << dump(found);
}

// A stale spec elsewhere is replaced by anygpu's one file, or rewritten by the vendor's tool.
TEST(DoctorContainers, StaleSpecFixReplacesItWithTheOneFile) {
  Host h("h100-8x");
  test::write_file(h.root + "/etc/cdi/nvidia.yaml",
                   "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"9\"\n"
                   "  containerEdits:\n    deviceNodes: [{path: /dev/nvidia9}]\n");
  auto stale = with_code(h.run(check_containers), "containers.cdi-stale");
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0].action,
            "sudo anygpu cdi generate --vendor nvidia --output /etc/cdi/anygpu-nvidia.yaml && "
            "sudo rm -- /etc/cdi/nvidia.yaml   (or, to keep the vendor tool's own spec: sudo "
            "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml)");
}

// Two specs defining the same names: in one directory an error (runtimes refuse those names),
// across directories a warning (/var/run/cdi's are used). A subdirectory is not read at all.
TEST(DoctorContainers, TwoSpecsDefiningTheSameDevices) {
  Host h("mi300x-8x");
  const std::string vendor_spec = R"({"cdiVersion": "0.5.0", "kind": "amd.com/gpu", "devices": [
  {"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD128"}]}},
  {"name": "all", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD128"}]}}],
 "containerEdits": {"deviceNodes": [{"path": "/dev/kfd"}]}})";
  test::write_file(h.root + "/etc/cdi/amd.json", vendor_spec);
  test::write_file(h.root + "/etc/cdi/old/amd.json", vendor_spec);
  EXPECT_TRUE(with_code(h.run(check_containers), "containers.cdi-duplicate").empty());
  auto ours = generate_cdi_spec(HostRoot([&] {
                                  HostOptions o;
                                  o.root = h.root;
                                  return o;
                                }()),
                                h.inv, "amd", {.host_view = true});
  ASSERT_TRUE(ours);
  test::write_file(h.root + "/etc/cdi/anygpu-amd.yaml", *ours);
  auto found = h.run(check_containers);
  auto dup = with_code(found, "containers.cdi-duplicate");
  ASSERT_EQ(dup.size(), 1u) << dump(found);
  EXPECT_EQ(dup[0].severity, Severity::error);
  EXPECT_EQ(dup[0].message,
            "/etc/cdi/amd.json and /etc/cdi/anygpu-amd.yaml both define 2 amd.com/gpu device "
            "name(s)");
  EXPECT_NE(dup[0].evidence.find("amd.com/gpu=0, amd.com/gpu=all"), std::string::npos)
      << dup[0].evidence;
  // The vendor's own spec is kept, as host-init keeps it.
  EXPECT_EQ(dup[0].action,
            "keep one: sudo rm -- /etc/cdi/anygpu-amd.yaml   (/etc/cdi/amd.json stays)");
  EXPECT_TRUE(with_code(found, "containers.cdi-shadowed").empty());

  fs::create_directories(h.root + "/var/run/cdi");
  fs::rename(h.root + "/etc/cdi/amd.json", h.root + "/var/run/cdi/amd.json");
  found = h.run(check_containers);
  EXPECT_TRUE(with_code(found, "containers.cdi-duplicate").empty()) << dump(found);
  auto shadow = with_code(found, "containers.cdi-shadowed");
  ASSERT_EQ(shadow.size(), 1u) << dump(found);
  EXPECT_EQ(shadow[0].severity, Severity::warning);
  EXPECT_EQ(shadow[0].message,
            "/var/run/cdi/amd.json overrides 2 amd.com/gpu device name(s) of "
            "/etc/cdi/anygpu-amd.yaml");
  EXPECT_EQ(shadow[0].action, "remove the one not in use: sudo rm -- /etc/cdi/anygpu-amd.yaml");
}

TEST(DoctorKernel, OlderThanRocmSupports) {
  Host h("mi300x-8x");
  EXPECT_TRUE(h.run(check_kernel_for_rocm).empty());  // 5.15 with ROCm 6.2.4
  test::write_file(h.root + "/proc/sys/kernel/osrelease", "4.15.0-213-generic\n");
  auto f = h.run(check_kernel_for_rocm);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "kernel.too-old-for-rocm");
  EXPECT_EQ(f[0].severity, Severity::error);
  EXPECT_NE(f[0].evidence.find("from 4.18"), std::string::npos) << f[0].evidence;
  test::write_file(h.root + "/opt/rocm/.info/version", "7.0.1-42\n");
  test::write_file(h.root + "/proc/sys/kernel/osrelease", "5.4.0-200-generic\n");
  f = h.run(check_kernel_for_rocm);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("from 5.14"), std::string::npos) << f[0].evidence;
  // No ROCm: nothing to compare.
  Host nv("h100-8x");
  test::write_file(nv.root + "/proc/sys/kernel/osrelease", "3.10.0\n");
  EXPECT_TRUE(nv.run(check_kernel_for_rocm).empty());
}

TEST(DoctorOpenFiles, LowSoftLimitIsAWarning) {
  Host h("cloud-vm-none");
  auto f = h.run(check_open_files, 0, {}, 1024);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "limits.nofile-low");
  EXPECT_EQ(f[0].severity, Severity::warning);
  EXPECT_NE(f[0].action.find("ulimit -n 65536"), std::string::npos);
  EXPECT_TRUE(h.run(check_open_files, 0, {}, 65536).empty());
  EXPECT_TRUE(h.run(check_open_files, 0, {}, std::nullopt).empty());  // unlimited
}

TEST(DoctorReport, JsonSchemaSummaryAndTextGrouping) {
  std::vector<Finding> fs = {{"a.info", Severity::info, "I", "d", ""},
                             {"b.err", Severity::error, "E", "line1\nline2", "do this"},
                             {"c.warn", Severity::warning, "W", "d", "fix w"},
                             {"d.warn", Severity::warning, "W2", "d", ""}};
  auto j = findings_to_json(fs);
  EXPECT_EQ(j["schema"], "anygpu.doctor/v1");
  EXPECT_EQ(j["summary"]["errors"], 1);
  EXPECT_EQ(j["summary"]["warnings"], 2);
  EXPECT_EQ(j["summary"]["infos"], 1);
  // The names anygpu.doctor/v1 has published since 0.1, not the Finding's own.
  EXPECT_EQ(
      j["findings"][1].dump(),
      R"({"id":"b.err","severity":"error","title":"E","detail":"line1\nline2","fix":"do this"})");
  EXPECT_EQ(j["findings"][0]["severity"], "info");
  EXPECT_EQ(j["findings"][2]["severity"], "warning");
  auto text = findings_to_text(fs, false);
  EXPECT_LT(text.find("Errors"), text.find("Warnings"));
  EXPECT_LT(text.find("Warnings"), text.find("Info"));
  EXPECT_NE(text.find("      line2\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\033'), std::string::npos) << "no colour when asked for none";
  EXPECT_NE(findings_to_text(fs, true).find("\033[1;31m"), std::string::npos);
  EXPECT_TRUE(has_errors(fs));
  EXPECT_NE(text.find("1 error(s), 2 warning(s), 1 info(s)"), std::string::npos) << text;
  fs.erase(fs.begin() + 1);
  EXPECT_FALSE(has_errors(fs));
}

}  // namespace
}  // namespace anygpu
