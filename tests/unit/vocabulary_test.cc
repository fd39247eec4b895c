// One vocabulary: arches, driver versions, usable devices and exit codes mean the same in check,
// select, wheel and the C ABI.
#include <gtest/gtest.h>

#include <tuple>

#include "anygpu.h"

#include <nlohmann/json.hpp>

#include "cluster/k8s.h"
#include "contract/spec.h"
#include "test_support.h"
#include "wheel/choose.h"
#include "model/arch.h"
#include "model/inventory.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "util/exit_codes.h"
#include "util/version.h"

namespace anygpu {

TEST(Vocabulary, ArchParsedOnce) {
  auto sm = Arch::parse("sm_90");
  ASSERT_TRUE(sm && sm->is_nvidia());
  EXPECT_EQ(sm->major, 9);
  EXPECT_EQ(sm->minor, 0);
  EXPECT_EQ(sm->sm(), 90);
  auto blackwell = Arch::parse("SM_120");
  ASSERT_TRUE(blackwell);
  EXPECT_EQ(blackwell->sm(), 120);
  EXPECT_EQ(blackwell->name, "sm_120");
  auto f = Arch::parse("sm_100f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->variant, 'f');
  EXPECT_EQ(f->sm(), 100);
  auto gfx = Arch::parse("gfx90a:sramecc+:xnack-");
  ASSERT_TRUE(gfx && gfx->is_gfx());
  EXPECT_EQ(gfx->name, "gfx90a");
  auto other = Arch::parse("xe-hpc");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->family, Arch::Family::other);
  for (const char* bad : {"", "sm_", "sm_9", "sm_9999", "sm_x0", "gfx", "gfxzz", "gfx-1", "9abc",
                          "has space", "xe:hpc"})
    EXPECT_FALSE(Arch::parse(bad)) << bad;
}

TEST(Vocabulary, OneDriverVersionComparison) {
  EXPECT_EQ(compare_versions("535.54.03", "535.54.3"), 0);
  EXPECT_EQ(compare_versions("12", "12.0"), 0);
  EXPECT_EQ(compare_versions("550.90.07", "535.54.03"), 1);
  EXPECT_EQ(compare_versions("12.10", "12.9"), 1);
  EXPECT_EQ(compare_versions("24.1.rc2", "24.1.0"), -1);  // Ascend's release candidates
  EXPECT_EQ(compare_versions("24.1.rc2", "24.1.rc10"), -1);
  EXPECT_EQ(compare_versions("24.1.RC3", "24.1.rc3"), 0);
  for (const char* bad : {"", "v550", "550-1", "5..5", "abc"})
    EXPECT_FALSE(compare_versions(bad, "1")) << bad;
}

namespace {
Device nvidia_with_driver(const std::string& version) {
  Device d;
  d.vendor = "nvidia";
  d.arch = "sm_90";
  d.driver = DriverInfo{"nvidia", version};
  return d;
}
}  // namespace

// `driver_version_min` in a contract and `driver_version` in a policy agree on every pair,
// release candidates included (select used to know only numbers).
TEST(Vocabulary, CheckAndSelectAgreeOnDriverVersions) {
  const char* pairs[][2] = {{"550.90.07", "535.54.03"}, {"535.54.03", "535.54.3"},
                            {"525.60.13", "535"},       {"24.1.rc2", "24.1.rc1"},
                            {"24.1.rc2", "24.1.0"},     {"580.65.06", "580.65.06"}};
  for (const auto& [have, min] : pairs) {
    auto cfg = parse_accelerator_config(
        std::string("device_selection_policy:\n  - priority: 1\n    criteria: [{type: "
                    "driver_version, min: \"") +
            min + "\"}]\n",
        "c.yaml");
    ASSERT_TRUE(cfg.ok()) << min << ": " << cfg.error().message;
    bool select_says = device_meets(nvidia_with_driver(have), cfg->policy[0].criteria[0]);
    auto cmp = compare_versions(have, min);
    ASSERT_TRUE(cmp) << have << " " << min;
    EXPECT_EQ(select_says, *cmp >= 0) << have << " >= " << min;
  }
}

TEST(Vocabulary, CheckAndSelectAgreeOnComputeCapability) {
  for (const char* have : {"sm_70", "sm_80", "sm_86", "sm_90", "sm_90a", "sm_100", "sm_120"}) {
    for (const char* min : {"sm_80", "sm_90", "sm_100"}) {
      auto req = ArchRequirement::parse(min);
      ASSERT_TRUE(req);
      auto cfg = parse_accelerator_config(
          std::string("device_selection_policy:\n  - priority: 1\n    criteria: [{type: "
                      "gpu_compute_capability, min: ") +
              min + "}]\n",
          "c.yaml");
      ASSERT_TRUE(cfg.ok());
      Device d;
      d.vendor = "nvidia";
      d.arch = have;
      EXPECT_EQ(device_meets(d, cfg->policy[0].criteria[0]), req->accepts(have))
          << have << " vs " << min;
    }
  }
}

TEST(Vocabulary, UsableIsOneDefinition) {
  Device d;
  using Row = std::tuple<DeviceStatus, bool, bool>;  // status, bound, usable
  const Row rows[] = {{DeviceStatus::ok, true, true},
                      {DeviceStatus::library_missing, true, true},
                      {DeviceStatus::suspended, true, false},
                      {DeviceStatus::driver_missing, false, false},
                      {DeviceStatus::passthrough, false, false}};
  for (const auto& [status, bound, usable] : rows) {
    d.status = status;
    EXPECT_EQ(d.bound(), bound) << to_string(status);
    EXPECT_EQ(d.usable(), usable) << to_string(status);
  }
}

TEST(Vocabulary, OneExitCodeMap) {
  EXPECT_EQ(exit_code_for(ErrorKind::bad_input), 2);
  EXPECT_EQ(exit_code_for(ErrorKind::host), 3);
  EXPECT_EQ(exit_code_for(ErrorKind::internal), 1);
  EXPECT_EQ(kExitRunFailed, 125);
  EXPECT_EQ(kExitNotExecutable, 126);
  EXPECT_EQ(kExitNotFound, 127);
}

// The laptop (awake Intel iGPU, suspended NVIDIA GPU) and the mixed workstation used to get
// different answers from select, wheel and k8s labels; every fixture now gets one.
TEST(Vocabulary, OnePrimaryVendorEverywhere) {
  for (const char* name : {"laptop-hybrid", "workstation-mixed", "h100-8x", "mi300x-8x",
                           "intel-max-arc", "ascend-910b-8x", "hygon-dcu"}) {
    const auto& inv = test::fixture_inventory(name);
    auto primary = primary_vendor(inv);
    auto selected = select_devices(inv, AcceleratorConfig{}, {});
    ASSERT_TRUE(selected.ok()) << name;
    EXPECT_EQ(selected->vendor, primary) << name;
    auto wheel = choose_wheel(builtin_wheel_data(), inv, WheelRequest{});
    ASSERT_TRUE(wheel.ok()) << name << ": " << wheel.error().message;
    EXPECT_EQ(wheel->vendor, primary) << name;
    auto labels = node_labels(inv, "anygpu.io");
    ASSERT_FALSE(labels.empty()) << name;
    EXPECT_EQ(labels.front().first, "anygpu.io/vendor");
    EXPECT_EQ(labels.front().second, primary) << name;
    // What the Python package gets: the C ABI's selection.
    nlohmann::json opts{{"root", test::fixture_host(name)}, {"no_libs", true}};
    char* doc = anygpu_select_json(opts.dump().c_str());
    auto j = nlohmann::json::parse(doc);
    anygpu_free(doc);
    EXPECT_EQ(j.value("vendor", ""), primary) << name << ": " << j.dump();
  }
  // The laptop's runtime-suspended RTX 4070 outranks its integrated GPU.
  EXPECT_EQ(primary_vendor(test::fixture_inventory("laptop-hybrid")), "nvidia");
  EXPECT_EQ(primary_vendor(test::fixture_inventory("cloud-vm-none")), "none");
}

}  // namespace anygpu
