// Level Zero Sysman health through the worker: the mock loader (tests/mocklibs/ze_metrics.cc)
// installed in a copy of the intel-max-arc fixture where the fixture's libze_loader.so.1 points,
// loaded by the worker exactly as in production. Memory health and RAS error counts become
// findings with the actions of data/health.yaml; a loader that crashes on one GPU costs only
// the facts it had not sent. The layouts the reader declares are checked against libze-dev.
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "health/checks.h"
#include "health/health.h"
#include "health/health_client.h"
#include "health_test_support.h"
#include "probe/probe.h"
#include "test_support.h"
#include "vendorlib/level_zero/abi.h"

#if __has_include(<level_zero/zes_api.h>)
#define ANYGPU_HEALTH_HAVE_ZES_H 1
#include <level_zero/zes_api.h>
#endif

namespace anygpu {
namespace {

using test::find_code;

// The fixture's loader is a symlink to this (empty) file; the mock replaces the file.
constexpr const char* kLoaderPath = "usr/lib/x86_64-linux-gnu/libze_loader.so.1.17.6";
// Mock device index -> bus id, as the mock and the fixture place them.
constexpr const char* kBus[] = {"0000:06:00.0", "0000:29:00.0", "0000:9a:00.0"};

struct ZeHealthHost : test::MockLibraryHost {
  ZeHealthHost()
      : MockLibraryHost("intel-max-arc", "mock_ze_metrics.so", kLoaderPath, "MOCK_ZE_HEALTH_FILE") {
  }
};

test::LibraryEvaluation evaluate(const ZeHealthHost& h) {
  return test::evaluate_with_library(h);
}

const std::string& action_of(std::string_view code) {
  return health::builtin_health_rules().library.at(std::string(code)).action_for("level-zero");
}

TEST(HealthLevelZero, MemoryHealthTheWorstModuleDecides) {
  ZeHealthHost h;
  // GPU 1 has two modules (tiles): one degraded, one running on reduced memory.
  test::write_file(h.answers, "0 memory 1\n1 memory 2 3\n2 memory 4\n");
  auto e = evaluate(h);
  EXPECT_TRUE(e.lib.warnings.empty()) << e.lib.warnings.front();
  ASSERT_EQ(e.lib.devices.size(), 3u);
  EXPECT_EQ(e.lib.devices.at(kBus[0]).api, "level-zero");
  EXPECT_TRUE(test::device_at(e.report, kBus[0]).findings.empty());  // ok
  const auto& tiles = test::device_at(e.report, kBus[1]);
  EXPECT_FALSE(find_code(tiles.findings, "memory.degraded"));
  auto* reduced = find_code(tiles.findings, "memory.reduced");
  ASSERT_TRUE(reduced);
  EXPECT_EQ(reduced->severity, Severity::error);
  EXPECT_EQ(reduced->evidence, "zesMemoryGetState: health 3 (critical)");
  EXPECT_EQ(reduced->action, action_of("memory.reduced"));
  EXPECT_EQ(tiles.health(), health::Health::critical);
  auto* replace = find_code(test::device_at(e.report, kBus[2]).findings, "memory.replace");
  ASSERT_TRUE(replace);
  EXPECT_EQ(replace->severity, Severity::error);
}

TEST(HealthLevelZero, DegradedMemoryWarnsAndUnknownSaysNothing) {
  ZeHealthHost h;
  test::write_file(h.answers, "0 memory 2\n1 memory 0 0\n2 memory 9\n");
  auto e = evaluate(h);
  auto* degraded = find_code(test::device_at(e.report, kBus[0]).findings, "memory.degraded");
  ASSERT_TRUE(degraded);
  EXPECT_EQ(degraded->severity, Severity::warning);
  EXPECT_FALSE(e.lib.devices.at(kBus[1]).memory_health);  // every module unknown
  EXPECT_TRUE(test::device_at(e.report, kBus[1]).findings.empty());
  // A value outside zes_mem_health_t is the library's error, named with the device, not a
  // finding.
  EXPECT_FALSE(e.lib.devices.at(kBus[2]).memory_health);
  EXPECT_TRUE(test::warns(e.report, kBus[2], "health 9"));
}

// Counts by category, summed over a device's error sets of each type (one per tile); resets
// and programming errors are reported apart from hardware errors.
TEST(HealthLevelZero, RasCountsBecomeFindingsByCategory) {
  ZeHealthHost h;
  test::write_file(h.answers,
                   "0 ras correctable 0 0 0 0 0 0 0\n"
                   "0 ras uncorrectable 0 0 0 0 0 0 0\n"
                   "1 ras correctable 0 0 0 3 0 4 0\n"
                   "1 ras uncorrectable 0 0 0 0 0 1 0\n"
                   "1 ras uncorrectable 2 0 0 1 0 0 0\n"
                   "2 ras uncorrectable 0 5 0 0 0 0 0\n");
  auto e = evaluate(h);
  EXPECT_TRUE(e.lib.warnings.empty()) << e.lib.warnings.front();
  EXPECT_TRUE(test::device_at(e.report, kBus[0]).findings.empty());
  const auto& d = test::device_at(e.report, kBus[1]);
  auto* ue = find_code(d.findings, "ras.uncorrectable");
  ASSERT_TRUE(ue);
  EXPECT_EQ(ue->severity, Severity::error);
  EXPECT_EQ(ue->message,
            "2 uncorrectable hardware error(s) since the driver loaded (compute 1, cache 1)");
  EXPECT_EQ(ue->evidence,
            "zesRasGetState (uncorrectable): reset 2, programming 0, driver 0, compute 1, "
            "non-compute 0, cache 1, display 0");
  EXPECT_EQ(ue->action, action_of("ras.uncorrectable"));
  auto* ce = find_code(d.findings, "ras.correctable");
  ASSERT_TRUE(ce);
  EXPECT_EQ(ce->severity, Severity::warning);
  EXPECT_EQ(ce->message,
            "7 corrected hardware error(s) since the driver loaded (compute 3, cache 4)");
  auto* reset = find_code(d.findings, "gpu.reset");
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->message, "the driver reset an engine 2 time(s) since it loaded");
  // Programming errors alone: the workload's fault, information about the device only.
  const auto& app = test::device_at(e.report, kBus[2]);
  EXPECT_FALSE(find_code(app.findings, "ras.uncorrectable"));
  auto* fault = find_code(app.findings, "gpu.program-fault");
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->severity, Severity::info);
  EXPECT_EQ(app.health(), health::Health::ok);
}

TEST(HealthLevelZero, UnreadableErrorSetsAreWarningsNotFindings) {
  ZeHealthHost h;
  test::write_file(h.answers,
                   "0 ras correctable 0 0 0\n"  // the mock answers NOT_AVAILABLE
                   "1 ras 7 0 0 0 0 0 0 0\n");  // a type zes_ras_error_type_t lacks
  auto e = evaluate(h);
  EXPECT_FALSE(e.lib.devices.at(kBus[0]).ras);
  EXPECT_FALSE(e.lib.devices.at(kBus[1]).ras);
  std::string all;
  for (const auto& w : e.report.warnings) all += w + "\n";
  EXPECT_NE(all.find("zesRasGetState: error 0x70010001"), std::string::npos) << all;
  EXPECT_NE(all.find("zesRasGetProperties: type 7"), std::string::npos) << all;
  EXPECT_TRUE(test::device_at(e.report, kBus[0]).findings.empty());
}

TEST(HealthLevelZero, ACrashingLoaderCostsOnlyTheDevicesNotSent) {
  ZeHealthHost h;
  test::write_file(h.answers, "0 memory 2\n1 ras correctable 0 0 0 0 0 1 0\n1 crash\n");
  auto e = evaluate(h);
  ASSERT_EQ(e.lib.warnings.size(), 1u);
  EXPECT_NE(e.lib.warnings[0].find("SIGSEGV"), std::string::npos) << e.lib.warnings[0];
  ASSERT_EQ(e.lib.devices.size(), 1u);  // GPU 0, sent before the crash on GPU 1
  EXPECT_EQ(e.lib.devices.at(kBus[0]).memory_health.value_or(0), 2u);
  EXPECT_TRUE(find_code(test::device_at(e.report, kBus[0]).findings, "memory.degraded"));
}

// Counts near the top of uint64 (a garbage or very long-lived counter) must not wrap into "no
// errors": 2^63 + 2^63 would be 0.
TEST(HealthLevelZeroFacts, HugeCountsSaturateInsteadOfWrapping) {
  health::DeviceLibraryFacts f;
  f.api = "level-zero";
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  f.ras = health::RasErrors{{kHalf, 0, 0, 0, 0, 0, 0}, {kHalf, 0, 0, kHalf, 0, kHalf, 0}};
  std::vector<Finding> out;
  health::check_library(f, health::builtin_health_rules(), out);
  auto* ue = find_code(out, "ras.uncorrectable");
  ASSERT_TRUE(ue);
  EXPECT_EQ(ue->message.rfind("18446744073709551615 uncorrectable", 0), 0u) << ue->message;
  auto* reset = find_code(out, "gpu.reset");
  ASSERT_TRUE(reset);
  EXPECT_NE(reset->message.find("18446744073709551615 time(s)"), std::string::npos)
      << reset->message;
  EXPECT_EQ(health::saturating_add(UINT64_MAX - 1, 1), UINT64_MAX);
  EXPECT_EQ(health::saturating_add(2, 3), 5u);
}

// The declarations the health reader added to vendorlib/level_zero/abi.h, against libze-dev.
TEST(HealthLevelZero, RasAndMemoryHealthLayoutsMatchZesApiH) {
#ifndef ANYGPU_HEALTH_HAVE_ZES_H
  FAIL() << "<level_zero/zes_api.h> not installed (Debian: apt install libze-dev)";
#else
  static_assert(sizeof(ze::RasProperties) == sizeof(zes_ras_properties_t));
  static_assert(offsetof(ze::RasProperties, type) == offsetof(zes_ras_properties_t, type));
  static_assert(offsetof(ze::RasProperties, onSubdevice) ==
                offsetof(zes_ras_properties_t, onSubdevice));
  static_assert(offsetof(ze::RasProperties, subdeviceId) ==
                offsetof(zes_ras_properties_t, subdeviceId));
  static_assert(sizeof(ze::RasState) == sizeof(zes_ras_state_t));
  static_assert(offsetof(ze::RasState, category) == offsetof(zes_ras_state_t, category));
  static_assert(ze::kRasCategoryCount == ZES_MAX_RAS_ERROR_CATEGORY_COUNT);
  static_assert(ze::kRasCategoryReset == ZES_RAS_ERROR_CAT_RESET);
  static_assert(ze::kStructureTypeRasProperties == ZES_STRUCTURE_TYPE_RAS_PROPERTIES);
  static_assert(ze::kStructureTypeRasState == ZES_STRUCTURE_TYPE_RAS_STATE);
  static_assert(ze::kRasErrorTypeCorrectable == ZES_RAS_ERROR_TYPE_CORRECTABLE);
  static_assert(ze::kRasErrorTypeUncorrectable == ZES_RAS_ERROR_TYPE_UNCORRECTABLE);
  static_assert(ze::kMemHealthUnknown == ZES_MEM_HEALTH_UNKNOWN);
  static_assert(ze::kMemHealthOk == ZES_MEM_HEALTH_OK);
  static_assert(ze::kMemHealthDegraded == ZES_MEM_HEALTH_DEGRADED);
  static_assert(ze::kMemHealthCritical == ZES_MEM_HEALTH_CRITICAL);
  static_assert(ze::kMemHealthReplace == ZES_MEM_HEALTH_REPLACE);
  // The category order the findings name (health::RasCounts).
  static_assert(ZES_RAS_ERROR_CAT_PROGRAMMING_ERRORS == 1 && ZES_RAS_ERROR_CAT_DRIVER_ERRORS == 2 &&
                ZES_RAS_ERROR_CAT_COMPUTE_ERRORS == 3 &&
                ZES_RAS_ERROR_CAT_NON_COMPUTE_ERRORS == 4 && ZES_RAS_ERROR_CAT_CACHE_ERRORS == 5 &&
                ZES_RAS_ERROR_CAT_DISPLAY_ERRORS == 6);
  using Get = ze_result_t (*)(zes_ras_handle_t, ze_bool_t, zes_ras_state_t*);
  static_assert(std::is_same_v<Get, decltype(&zesRasGetState)>);
  static_assert(sizeof(ze_bool_t) == sizeof(uint8_t));
  EXPECT_EQ(sizeof(ze::RasState), sizeof(zes_ras_state_t));
  EXPECT_EQ(offsetof(ze::RasProperties, subdeviceId), offsetof(zes_ras_properties_t, subdeviceId));
#endif
}

}  // namespace
}  // namespace anygpu
