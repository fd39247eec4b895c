// Intel metrics: sysfs plus Level Zero Sysman through a mock loader (tests/mocklibs/
// ze_metrics.cc) installed in a copy of the intel-max-arc fixture and loaded through the
// production path. Utilization needs two activity snapshots; the mock's counters come from a
// file the test rewrites between samples.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstddef>
#include <filesystem>

#include "host/host_root.h"
#include "metrics/backend.h"
#include "metrics/collector.h"
#include "probe/probe.h"
#include "test_support.h"
#include "vendorlib/level_zero/abi.h"

#if __has_include(<level_zero/zes_api.h>)
#define ANYGPU_METRICS_HAVE_ZES_H 1
#include <level_zero/zes_api.h>
#endif

namespace anygpu {
namespace {

namespace fs = std::filesystem;

// The fixture's loader is a symlink to this (empty) file; the mock replaces the file.
constexpr const char* kLoaderPath = "usr/lib/x86_64-linux-gnu/libze_loader.so.1.17.6";

struct ZeHost {
  explicit ZeHost(bool with_library = true) : root(tmp / "root"), values(tmp / "ze-values") {
    test::copy_tree(test::fixture_host("intel-max-arc"), root);
    if (with_library) {
      std::string src = test::mock_library("mock_ze_metrics.so");
      EXPECT_TRUE(fs::is_regular_file(src)) << src << " was not built";
      fs::copy_file(src, root + "/" + kLoaderPath, fs::copy_options::overwrite_existing);
    }
    ::setenv("MOCK_ZE_METRICS_FILE", values.c_str(), 1);
  }
  ~ZeHost() { ::unsetenv("MOCK_ZE_METRICS_FILE"); }
  HostOptions options() const {
    HostOptions o;
    o.root = root;
    o.library_timeout = std::chrono::milliseconds(2000);
    return o;
  }
  // Backends built once, so the second sample sees the first one's counters.
  std::vector<std::shared_ptr<MetricsBackend>> backends() const {
    HostRoot host(options());
    return make_backends(host, probe(host), Registry::builtin());
  }
  void write(const std::string& rows) const { test::write_file(values, rows); }
  test::TempDir tmp;
  std::string root, values;
};

const DeviceSample* find(const MetricsSnapshot& s, const std::string& bus) {
  for (const auto& d : s.devices)
    if (d.pci_bus_id == bus) return &d;
  return nullptr;
}
const BackendStatus* backend(const MetricsSnapshot& s, const std::string& vendor) {
  for (const auto& b : s.backends)
    if (b.vendor == vendor) return &b;
  return nullptr;
}
bool mentions(const DeviceSample& d, const std::string& what) {
  for (const auto& w : d.warnings)
    if (w.find(what) != std::string::npos) return true;
  return false;
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(MetricsLevelZero, UtilizationFromTwoActivitySnapshots) {
  ZeHost h;
  auto backends = h.backends();
  // GPU 1 (0000:29:00.0): 64 GiB, 8 GiB free.
  h.write("1 1000000 2000000 68719476736 8589934592\n");
  auto first = sample_once(backends, {});
  auto* b = backend(first, "intel");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->up) << b->error.value_or("");
  EXPECT_EQ(b->source, "sysfs+level-zero");
  auto* d = find(first, "0000:29:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->utilization_ratio) << "one snapshot has no interval";
  EXPECT_EQ(d->memory_total_bytes, 64 * kGiB);
  EXPECT_EQ(d->memory_used_bytes, 56 * kGiB);

  // 250 ms busy in 1 s: 0.25 (the compute group, busy throughout, would say 1.0).
  h.write("1 1250000 3000000 68719476736 8589934592\n");
  auto second = sample_once(backends, {});
  d = find(second, "0000:29:00.0");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->utilization_ratio);
  EXPECT_DOUBLE_EQ(*d->utilization_ratio, 0.25);
  // GPUs without a line in the file: the activity call fails, named in a warning.
  auto* other = find(second, "0000:9a:00.0");
  ASSERT_NE(other, nullptr);
  EXPECT_FALSE(other->utilization_ratio);
  EXPECT_TRUE(mentions(*other, "zesEngineGetActivity")) << testing::PrintToString(other->warnings);
}

TEST(MetricsLevelZero, CountersGoingBackRestartTheInterval) {
  ZeHost h;
  auto backends = h.backends();
  h.write("2 5000000 9000000 1000 500\n");
  sample_once(backends, {});
  h.write("2 100 200 1000 500\n");  // driver reloaded: counters restarted
  auto snap = sample_once(backends, {});
  auto* d = find(snap, "0000:9a:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->utilization_ratio);
  h.write("2 600 1200 1000 500\n");
  snap = sample_once(backends, {});
  d = find(snap, "0000:9a:00.0");
  ASSERT_TRUE(d && d->utilization_ratio);
  EXPECT_DOUBLE_EQ(*d->utilization_ratio, 0.5);
}

TEST(MetricsLevelZero, MalformedMemoryStateIsAWarningNotAValue) {
  ZeHost h;
  h.write("0 0 0 1000 2000\n");  // more free than there is
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  auto* d = find(*snap, "0000:06:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->memory_total_bytes);
  EXPECT_FALSE(d->memory_used_bytes);
  EXPECT_TRUE(mentions(*d, "free exceeds size")) << testing::PrintToString(d->warnings);
}

TEST(MetricsLevelZero, WithoutTheLoaderTheBackendIsSysfsAsBefore) {
  ZeHost h(/*with_library=*/false);  // the fixture's empty libze_loader stays
  h.write("1 1000000 2000000 68719476736 8589934592\n");
  auto backends = h.backends();
  sample_once(backends, {});
  auto snap = sample_once(backends, {});
  auto* b = backend(snap, "intel");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->up) << b->error.value_or("");
  EXPECT_EQ(b->source, "sysfs");
  ASSERT_EQ(snap.devices.size(), 3u);
  for (const auto& d : snap.devices) {
    EXPECT_FALSE(d.utilization_ratio) << d.pci_bus_id;
    EXPECT_FALSE(mentions(d, "level-zero")) << d.pci_bus_id;
  }
}

TEST(MetricsLevelZero, NoLibsFlagKeepsSysmanClosed) {
  ZeHost h;
  h.write("1 1000000 2000000 68719476736 8589934592\n");
  auto o = h.options();
  o.load_libraries = false;
  auto snap = sample_once(o, {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  auto* b = backend(*snap, "intel");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->source, "sysfs");
  auto* d = find(*snap, "0000:29:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->memory_total_bytes);
}

// The declarations the sampler added to vendorlib/level_zero/abi.h, against Debian's libze-dev.
TEST(MetricsLevelZero, SysmanMetricLayoutsMatchZesApiH) {
#ifndef ANYGPU_METRICS_HAVE_ZES_H
  FAIL() << "<level_zero/zes_api.h> not installed (Debian: apt install libze-dev)";
#else
  static_assert(sizeof(ze::EngineProperties) == sizeof(zes_engine_properties_t));
  static_assert(offsetof(ze::EngineProperties, type) == offsetof(zes_engine_properties_t, type));
  static_assert(offsetof(ze::EngineProperties, onSubdevice) ==
                offsetof(zes_engine_properties_t, onSubdevice));
  static_assert(offsetof(ze::EngineProperties, subdeviceId) ==
                offsetof(zes_engine_properties_t, subdeviceId));
  static_assert(sizeof(ze::EngineStats) == sizeof(zes_engine_stats_t));
  static_assert(offsetof(ze::EngineStats, activeTime) == offsetof(zes_engine_stats_t, activeTime));
  static_assert(offsetof(ze::EngineStats, timestamp) == offsetof(zes_engine_stats_t, timestamp));
  static_assert(sizeof(ze::MemState) == sizeof(zes_mem_state_t));
  static_assert(offsetof(ze::MemState, health) == offsetof(zes_mem_state_t, health));
  static_assert(offsetof(ze::MemState, free) == offsetof(zes_mem_state_t, free));
  static_assert(offsetof(ze::MemState, size) == offsetof(zes_mem_state_t, size));
  static_assert(ze::kStructureTypeEngineProperties == ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES);
  static_assert(ze::kStructureTypeMemState == ZES_STRUCTURE_TYPE_MEM_STATE);
  static_assert(ze::kEngineGroupAll == ZES_ENGINE_GROUP_ALL);
  static_assert(ze::kEngineGroupComputeAll == ZES_ENGINE_GROUP_COMPUTE_ALL);
  static_assert(ze::kEngineGroupRenderAll == ZES_ENGINE_GROUP_RENDER_ALL);
  EXPECT_EQ(sizeof(ze::MemState), sizeof(zes_mem_state_t));
  EXPECT_EQ(offsetof(ze::MemState, size), offsetof(zes_mem_state_t, size));
#endif
}

}  // namespace
}  // namespace anygpu
