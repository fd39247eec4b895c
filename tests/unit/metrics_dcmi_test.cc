// Ascend metrics through a mock DCMI (tests/mocklibs/dcmi_metrics.cc) installed in a copy of
// the ascend-910b-8x fixture where the registry looks for libdcmi.so, loaded through the
// production path. Without the library the backend is the hwmon reader it was before.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "metrics/collector.h"
#include "test_support.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;

// One of the dirs data/vendors.yaml lists for Ascend's dcmi library.
constexpr const char* kDcmiPath = "usr/local/Ascend/driver/lib64/driver/libdcmi.so";

struct DcmiHost {
  explicit DcmiHost(bool with_library = true) : root(tmp / "root"), values(tmp / "dcmi-values") {
    test::copy_tree(test::fixture_host("ascend-910b-8x"), root);
    if (with_library) {
      std::string src = test::mock_library("mock_dcmi_metrics.so");
      EXPECT_TRUE(fs::is_regular_file(src)) << src << " was not built";
      fs::create_directories(fs::path(root + "/" + kDcmiPath).parent_path());
      fs::copy_file(src, root + "/" + kDcmiPath, fs::copy_options::overwrite_existing);
    }
    ::setenv("MOCK_DCMI_METRICS_FILE", values.c_str(), 1);
  }
  ~DcmiHost() { ::unsetenv("MOCK_DCMI_METRICS_FILE"); }
  HostOptions options() const {
    HostOptions o;
    o.root = root;
    o.library_timeout = std::chrono::milliseconds(2000);
    return o;
  }
  // Card c: util 30+c %, 40+c °C, (850+c) × 0.1 W, 65536 MB HBM of which 1024×c MB used.
  void write_all() const {
    std::string s;
    for (int c = 0; c < 8; ++c)
      s += std::to_string(c) + " " + std::to_string(30 + c) + " " + std::to_string(40 + c) + " " +
           std::to_string(850 + c) + " 65536 " + std::to_string(1024 * c) + "\n";
    test::write_file(values, s);
  }
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

constexpr double kMiB = 1024.0 * 1024.0;

TEST(MetricsDcmi, SamplesEveryNpuByBusId) {
  DcmiHost h;
  h.write_all();
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  ASSERT_EQ(snap->devices.size(), 8u);
  auto* b = backend(*snap, "ascend");
  ASSERT_NE(b, nullptr) << "no ascend backend";
  EXPECT_TRUE(b->up) << b->error.value_or("");
  EXPECT_EQ(b->source, "hwmon+dcmi");
  auto* d = find(*snap, "0000:41:00.0");  // card 2
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->index, 2);
  ASSERT_TRUE(d->utilization_ratio);
  EXPECT_DOUBLE_EQ(*d->utilization_ratio, 0.32);
  EXPECT_EQ(d->temperature_celsius, 42.0);
  EXPECT_EQ(d->temperatures_celsius.at("npu"), 42.0);
  EXPECT_EQ(d->temperatures_celsius.at("hbm"), 37.0);
  ASSERT_TRUE(d->power_watts);
  EXPECT_DOUBLE_EQ(*d->power_watts, 85.2);
  EXPECT_EQ(d->memory_total_bytes, 65536 * kMiB);
  EXPECT_EQ(d->memory_used_bytes, 2048 * kMiB);
  auto* last = find(*snap, "0000:c2:00.0");  // card 7
  ASSERT_NE(last, nullptr);
  EXPECT_DOUBLE_EQ(*last->utilization_ratio, 0.37);
  EXPECT_TRUE(last->warnings.empty()) << testing::PrintToString(last->warnings);
}

TEST(MetricsDcmi, FailedCallsAreWarningsNotZeros) {
  DcmiHost h;
  test::write_file(h.values, "0 101 40 850 100 200\n");  // out of range utilization, used > total
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  auto* d0 = find(*snap, "0000:01:00.0");
  ASSERT_NE(d0, nullptr);
  EXPECT_FALSE(d0->utilization_ratio);
  EXPECT_FALSE(d0->memory_total_bytes);
  EXPECT_EQ(d0->temperature_celsius, 40.0);
  auto* d1 = find(*snap, "0000:02:00.0");  // no line: every call fails
  ASSERT_NE(d1, nullptr);
  EXPECT_FALSE(d1->utilization_ratio);
  EXPECT_FALSE(d1->temperature_celsius);
  EXPECT_FALSE(d1->power_watts);
  ASSERT_FALSE(d1->warnings.empty());
  EXPECT_NE(d1->warnings.front().find("-8255"), std::string::npos) << d1->warnings.front();
}

TEST(MetricsDcmi, WithoutTheLibraryIdentityAsBefore) {
  DcmiHost h(/*with_library=*/false);
  h.write_all();
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  ASSERT_EQ(snap->devices.size(), 8u);
  auto* b = backend(*snap, "ascend");
  ASSERT_NE(b, nullptr);
  // Identities alone: nothing to serve, so the backend is down (never up with no values).
  EXPECT_FALSE(b->up);
  EXPECT_EQ(b->error.value_or(""), "no value for any device");
  EXPECT_EQ(b->source, "hwmon");
  auto* d = find(*snap, "0000:41:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->index, 2);
  EXPECT_FALSE(d->utilization_ratio);
  EXPECT_FALSE(d->memory_total_bytes);
}

}  // namespace
}  // namespace anygpu
