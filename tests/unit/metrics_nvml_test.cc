// NVIDIA metrics through a mock NVML (tests/mocklibs/nvml_metrics.cc) installed in a copy of
// the h100-8x fixture and loaded through the production path. The mock reads its values from
// a file the test rewrites; a "hang" line makes its metric calls block.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>

#include "metrics/backend.h"
#include "metrics/collector.h"
#include "metrics/prometheus.h"
#include "test_support.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kNvmlPath = "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";

struct NvmlHost {
  NvmlHost() : root(tmp / "root"), values(tmp / "nvml-values") {
    test::copy_tree(test::fixture_host("h100-8x"), root);
    std::string src = test::mock_library("mock_nvml_metrics.so");
    EXPECT_TRUE(fs::is_regular_file(src)) << src << " was not built";
    fs::create_directories(fs::path(root + "/" + kNvmlPath).parent_path());
    fs::copy_file(src, root + "/" + kNvmlPath, fs::copy_options::overwrite_existing);
    ::setenv("MOCK_NVML_METRICS_FILE", values.c_str(), 1);
  }
  ~NvmlHost() { ::unsetenv("MOCK_NVML_METRICS_FILE"); }
  HostOptions options(int timeout_ms = 1000) const {
    HostOptions o;
    o.root = root;
    o.library_timeout = std::chrono::milliseconds(timeout_ms);
    return o;
  }
  // Rows for every GPU: util %, °C, mW, mJ, graphics/sm/mem MHz, each varying with the index.
  void write(int util, int temp, int mw, long long mj, const std::string& extra = "") const {
    std::string s = extra;
    for (int i = 0; i < 8; ++i)
      s += std::to_string(i) + " " + std::to_string(util + i) + " " + std::to_string(temp + i) +
           " " + std::to_string(mw + i * 1000) + " " + std::to_string(mj + i) + " 1755 1755 2619\n";
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

TEST(MetricsNvml, SamplesEveryGpuThroughTheRealLoader) {
  NvmlHost h;
  h.write(40, 50, 300000, 123456789);
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  ASSERT_EQ(snap->devices.size(), 8u);
  auto* b = backend(*snap, "nvidia");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->source, "nvml");
  EXPECT_TRUE(b->up) << b->error.value_or("");
  auto* d = find(*snap, "0000:3a:00.0");  // index 2
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->index, 2);
  EXPECT_EQ(d->uuid, "GPU-8be09f7c-ae13-3913-4055-65df6f5d9946");
  EXPECT_DOUBLE_EQ(*d->utilization_ratio, 0.42);
  EXPECT_EQ(d->temperature_celsius, 52.0);
  EXPECT_EQ(d->temperatures_celsius.at("gpu"), 52.0);
  EXPECT_DOUBLE_EQ(*d->power_watts, 302.0);
  EXPECT_EQ(d->power_limit_watts, 700.0);
  EXPECT_DOUBLE_EQ(*d->energy_joules, 123456.791);
  EXPECT_EQ(d->memory_total_bytes, 85520809984.0);
  EXPECT_EQ(d->memory_used_bytes, 565182464.0);
  EXPECT_EQ(d->clocks_hertz.at("graphics"), 1755e6);
  EXPECT_EQ(d->clocks_hertz.at("sm"), 1755e6);
  EXPECT_EQ(d->clocks_hertz.at("memory"), 2619e6);
}

TEST(MetricsNvml, NotSupportedIsAbsentNotZero) {
  NvmlHost h;
  test::write_file(h.values, "0 17 - - - - - -\n");  // GPU 0: utilization only
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok());
  auto* d = find(*snap, "0000:18:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(*d->utilization_ratio, 0.17);
  EXPECT_FALSE(d->temperature_celsius);
  EXPECT_FALSE(d->power_watts);
  EXPECT_FALSE(d->energy_joules);
  EXPECT_TRUE(d->clocks_hertz.empty());
  EXPECT_TRUE(d->warnings.empty()) << d->warnings.front();
  auto* other = find(*snap, "0000:2a:00.0");  // no line at all
  EXPECT_FALSE(other->utilization_ratio);
}

TEST(MetricsNvml, WithoutTheLibraryTheBackendIsDownAndDevicesStayListed) {
  test::TempDir tmp;
  std::string root = tmp / "root";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  HostOptions o;
  o.root = root;
  auto snap = sample_once(o, {});
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->devices.size(), 8u);
  auto* b = backend(*snap, "nvidia");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->up);
  EXPECT_TRUE(b->error.has_value());
  for (const auto& d : snap->devices) {
    EXPECT_FALSE(d.utilization_ratio);
    EXPECT_TRUE(d.uuid.has_value()) << "identity still comes from the kernel";
  }
  auto text = render_prometheus(*snap, std::chrono::system_clock::now());
  EXPECT_NE(text.find("anygpu_backend_up{vendor=\"nvidia\",source=\"nvml\"} 0"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("anygpu_gpu_utilization_ratio{"), std::string::npos) << text;
}

TEST(MetricsNvml, CollectorFollowsChangesAndSurvivesAHang) {
  NvmlHost h;
  h.write(10, 40, 100000, 1000);
  CollectorOptions opts{.interval = 100ms, .call_timeout = 300ms};
  auto c = start_collector(h.options(), opts);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto& collector = **c;
  auto first = collector.snapshot();
  ASSERT_TRUE(backend(*first, "nvidia")->up) << backend(*first, "nvidia")->error.value_or("");
  EXPECT_DOUBLE_EQ(*find(*first, "0000:18:00.0")->utilization_ratio, 0.10);

  // New values show within a few intervals.
  h.write(90, 70, 650000, 5000);
  auto deadline = std::chrono::steady_clock::now() + 5s;
  std::shared_ptr<const MetricsSnapshot> s;
  do {
    std::this_thread::sleep_for(50ms);
    s = collector.snapshot();
  } while (find(*s, "0000:18:00.0")->utilization_ratio != 0.9 &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_DOUBLE_EQ(*find(*s, "0000:18:00.0")->utilization_ratio, 0.9);
  EXPECT_DOUBLE_EQ(*find(*s, "0000:18:00.0")->power_watts, 650.0);

  // NVML hangs: snapshots still answer at once, the backend goes down, the sample ages.
  h.write(90, 70, 650000, 5000, "hang\n");
  deadline = std::chrono::steady_clock::now() + 5s;
  do {
    std::this_thread::sleep_for(50ms);
    auto t0 = std::chrono::steady_clock::now();
    s = collector.snapshot();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 50ms) << "snapshot() blocked";
  } while (backend(*s, "nvidia")->up && std::chrono::steady_clock::now() < deadline);
  auto* b = backend(*s, "nvidia");
  EXPECT_FALSE(b->up);
  ASSERT_TRUE(b->error.has_value());
  EXPECT_DOUBLE_EQ(*find(*s, "0000:18:00.0")->utilization_ratio, 0.9) << "the last sample stays";
  std::this_thread::sleep_for(400ms);
  auto now = std::chrono::system_clock::now();
  auto text = render_prometheus(*collector.snapshot(), now);
  EXPECT_NE(text.find("anygpu_backend_up{vendor=\"nvidia\",source=\"nvml\"} 0"), std::string::npos)
      << text;
  EXPECT_GE(now - collector.snapshot()->backends.front().last_success, 400ms);

  // The call returns once NVML answers again; the backend comes back up.
  h.write(20, 45, 200000, 9000);
  deadline = std::chrono::steady_clock::now() + 5s;
  do {
    std::this_thread::sleep_for(50ms);
    s = collector.snapshot();
  } while (!backend(*s, "nvidia")->up && std::chrono::steady_clock::now() < deadline);
  EXPECT_TRUE(backend(*s, "nvidia")->up);

  auto t0 = std::chrono::steady_clock::now();
  collector.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s) << "stop() waited on a vendor call";
}

}  // namespace
}  // namespace anygpu
