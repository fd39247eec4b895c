// The driver's user space against its kernel module, on fixture copies carrying NVIDIA's mock
// user-space driver (tests/e2e/driver/make_driver_host.sh, with a real ld.so.cache from
// `ldconfig -r`): libraries of another version than the module are an error naming both, and a
// management library that failed is a finding unless that mismatch already explains it.
#include <gtest/gtest.h>

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
  explicit Host(const std::string& userspace_version = "") : root(tmp / "root") {
    auto env = userspace_version.empty()
                   ? std::string()
                   : cat({"NVIDIA_USERSPACE_VERSION=", userspace_version, " "});
    auto make = cat({env, ANYGPU_SOURCE_DIR, "/tests/e2e/driver/make_driver_host.sh nvidia ",
                     test::fixture_host("h100-8x"), " ", root, " >/dev/null"});
    EXPECT_EQ(std::system(make.c_str()), 0) << make;
    inv = test::probe_root(root);
  }
  std::vector<Finding> run() {
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    HostRoot host(o);
    DoctorContext ctx(host, inv);
    return check_driver_userspace(ctx);
  }
};

LibraryReport nvml(LibraryStatus status) {
  return {"nvidia", "nvml", status, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
          "nvmlInit_v2 returned 18"};
}

TEST(DoctorDriverUserspace, LibrariesOfTheModulesVersionAreNoFinding) {
  Host h;
  EXPECT_TRUE(h.run().empty());
}

TEST(DoctorDriverUserspace, LibrariesOfAnotherVersionThanTheModuleAreAnError) {
  Host h("560.35.03");
  auto f = with_code(h.run(), "driver.userspace-mismatch");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::error);
  EXPECT_NE(f[0].message.find("kernel module 550.90.07"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].evidence.find("libnvidia-ml.so.1 -> /usr/lib/x86_64-linux-gnu/"
                               "libnvidia-ml.so.560.35.03 (560.35.03)"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_NE(f[0].action.find("reboot"), std::string::npos) << f[0].action;
  EXPECT_NE(f[0].action.find("550.90.07"), std::string::npos) << f[0].action;
}

TEST(DoctorDriverUserspace, AFailedRequiredLibraryIsAnError) {
  Host h;
  h.inv.libraries = {nvml(LibraryStatus::error)};
  auto f = with_code(h.run(), "driver.library-failed");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::error);  // NVML ships with the driver (required: true)
  EXPECT_NE(f[0].evidence.find("nvmlInit_v2 returned 18"), std::string::npos) << f[0].evidence;
  EXPECT_NE(f[0].action.find("550.90.07"), std::string::npos) << f[0].action;
  for (auto verdict : {LibraryStatus::timeout, LibraryStatus::crashed}) {
    h.inv.libraries = {nvml(verdict)};
    EXPECT_EQ(with_code(h.run(), "driver.library-failed").size(), 1u) << to_string(verdict);
  }
}

TEST(DoctorDriverUserspace, LoadedMissingOrDisabledLibrariesAreNoFinding) {
  Host h;
  for (auto s : {LibraryStatus::loaded, LibraryStatus::found, LibraryStatus::missing,
                 LibraryStatus::disabled}) {
    h.inv.libraries = {nvml(s)};
    EXPECT_TRUE(with_code(h.run(), "driver.library-failed").empty()) << to_string(s);
  }
}

TEST(DoctorDriverUserspace, AMismatchExplainsTheFailedLibraryOnce) {
  Host h("560.35.03");
  h.inv.libraries = {nvml(LibraryStatus::error)};
  auto all = h.run();
  EXPECT_EQ(with_code(all, "driver.userspace-mismatch").size(), 1u);
  EXPECT_TRUE(with_code(all, "driver.library-failed").empty());
}

TEST(DoctorDriverUserspace, AFailedLibraryOfAVendorWithoutDevicesIsNoFinding) {
  Host h;
  auto report = nvml(LibraryStatus::error);
  report.vendor = "amd";
  report.api = "rocm-smi";
  h.inv.libraries = {report};
  EXPECT_TRUE(h.run().empty());
}

}  // namespace
}  // namespace anygpu
