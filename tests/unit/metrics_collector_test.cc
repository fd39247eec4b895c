// The background collector: it follows rewritten fixture files, never blocks a snapshot on a
// backend, marks a stuck or failing backend down while its samples age, and stops promptly.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "metrics/backend.h"
#include "metrics/collector.h"
#include "test_support.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A backend the test controls: answers, fails, or blocks until released.
class ScriptedBackend final : public MetricsBackend {
 public:
  const std::string& vendor() const override { return vendor_; }
  const std::string& source() const override { return source_; }
  std::vector<DeviceSample> identities() const override { return {identity()}; }
  Result<std::vector<DeviceSample>> sample() override {
    calls.fetch_add(1);
    while (block.load()) std::this_thread::sleep_for(5ms);
    if (fail.load()) return host_error("scripted failure");
    auto s = identity();
    if (asleep.load()) s.warnings.push_back("runtime-suspended: not sampled");
    if (!empty.load() && !asleep.load()) s.utilization_ratio = value.load() / 100.0;
    return std::vector<DeviceSample>{s};
  }
  std::atomic<int> value{0};
  // empty: answers with the identity alone; asleep: the device is runtime-suspended.
  std::atomic<bool> block{false}, fail{false}, empty{false}, asleep{false};
  std::atomic<int> calls{0};

 private:
  static DeviceSample identity() {
    DeviceSample s;
    s.vendor = "enflame";
    s.pci_bus_id = "0000:01:00.0";
    return s;
  }
  std::string vendor_ = "enflame", source_ = "scripted";
};

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 5s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

TEST(MetricsCollector, FirstSampleBeforeStartReturns) {
  auto b = std::make_shared<ScriptedBackend>();
  b->value = 33;
  auto c = start_collector({b}, {.interval = 10s, .call_timeout = 1s});
  ASSERT_TRUE(c.ok());
  auto s = (*c)->snapshot();
  ASSERT_EQ(s->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(*s->devices[0].utilization_ratio, 0.33);
  EXPECT_TRUE(s->backends[0].up);
  auto t0 = std::chrono::steady_clock::now();
  (*c)->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms) << "stop() waited out the interval";
}

TEST(MetricsCollector, HungBackendIsDownAndAgesWithoutBlocking) {
  auto b = std::make_shared<ScriptedBackend>();
  b->value = 50;
  auto c = start_collector({b}, {.interval = 50ms, .call_timeout = 100ms});
  ASSERT_TRUE(c.ok());
  auto& col = **c;
  auto good = col.snapshot()->backends[0].last_success;
  b->block = true;
  EXPECT_TRUE(eventually([&] { return !col.snapshot()->backends[0].up; }));
  auto s = col.snapshot();
  EXPECT_NE(s->backends[0].error.value_or("").find("abandoned"), std::string::npos)
      << s->backends[0].error.value_or("");
  EXPECT_EQ(s->backends[0].last_success, good) << "the sample ages";
  EXPECT_DOUBLE_EQ(*s->devices[0].utilization_ratio, 0.5) << "the last values stay";
  // No pile-up: while the first call hangs, no second one starts.
  int calls = b->calls.load();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(b->calls.load(), calls);
  // The stuck call returns: the backend recovers.
  b->value = 70;
  b->block = false;
  EXPECT_TRUE(eventually([&] { return col.snapshot()->backends[0].up; }));
  EXPECT_TRUE(eventually([&] { return col.snapshot()->devices[0].utilization_ratio == 0.7; }));
  EXPECT_GT(col.snapshot()->backends[0].last_success, good);
}

TEST(MetricsCollector, FailingBackendIsDownWithItsError) {
  auto b = std::make_shared<ScriptedBackend>();
  b->fail = true;
  auto snap = sample_once({b}, {});
  ASSERT_EQ(snap.backends.size(), 1u);
  EXPECT_FALSE(snap.backends[0].up);
  EXPECT_EQ(snap.backends[0].error, "scripted failure");
  EXPECT_EQ(snap.backends[0].last_success, std::chrono::system_clock::time_point{});
  ASSERT_EQ(snap.devices.size(), 1u) << "the device is still listed";
  EXPECT_FALSE(snap.devices[0].utilization_ratio);
}

TEST(MetricsCollector, ABackendWithoutAnyValueIsDown) {
  auto b = std::make_shared<ScriptedBackend>();
  b->empty = true;
  auto snap = sample_once({b}, {});
  EXPECT_FALSE(snap.backends[0].up);
  EXPECT_EQ(snap.backends[0].error, "no value for any device");
  EXPECT_EQ(snap.backends[0].last_success, std::chrono::system_clock::time_point{});
  // In the background too, and up again once a value comes.
  auto c = start_collector({b}, {.interval = 20ms, .call_timeout = 1s});
  ASSERT_TRUE(c.ok());
  auto& col = **c;
  EXPECT_FALSE(col.snapshot()->backends[0].up);
  b->value = 10;
  b->empty = false;
  EXPECT_TRUE(eventually([&] { return col.snapshot()->backends[0].up; }));
  b->empty = true;
  EXPECT_TRUE(eventually([&] { return !col.snapshot()->backends[0].up; }));
  col.stop();
}

TEST(MetricsCollector, ABackendOfSleepingDevicesIsUp) {
  auto b = std::make_shared<ScriptedBackend>();
  b->asleep = true;  // nothing to read, by design: never woken to be sampled
  auto snap = sample_once({b}, {});
  EXPECT_TRUE(snap.backends[0].up) << snap.backends[0].error.value_or("");
}

TEST(MetricsCollector, AscendWithoutDcmiIsDown) {
  // The fixture has the NPUs and no libdcmi: DCMI's backend has no value to give.
  auto snap = sample_once(
      HostOptions{test::fixture_host("ascend-910b-8x"), true, std::chrono::milliseconds(1000)}, {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  ASSERT_EQ(snap->backends.size(), 1u);
  EXPECT_EQ(snap->backends[0].vendor, "ascend");
  EXPECT_FALSE(snap->backends[0].up);
}

TEST(MetricsCollector, FollowsRewrittenSysfs) {
  test::TempDir tmp;
  std::string root = tmp / "root";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  auto c = start_collector(o, {.interval = 50ms, .call_timeout = 1s});
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto s = (*c)->snapshot();
  ASSERT_EQ(s->devices.size(), 8u);
  ASSERT_EQ(s->backends.size(), 1u);
  EXPECT_EQ(s->backends[0].vendor, "amd");
  EXPECT_EQ(s->backends[0].source, "sysfs");
  EXPECT_TRUE(s->backends[0].up);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s->devices[static_cast<size_t>(i)].index, i);
  EXPECT_DOUBLE_EQ(*s->devices[7].utilization_ratio, 0.23);
  std::string busy =
      fs::canonical(root + "/sys/bus/pci/devices/0000:e5:00.0").string() + "/gpu_busy_percent";
  test::write_file(busy, "99\n");
  EXPECT_TRUE(eventually([&] { return (*c)->snapshot()->devices[7].utilization_ratio == 0.99; }));
}

TEST(MetricsCollector, RejectsNonPositiveInterval) {
  auto b = std::make_shared<ScriptedBackend>();
  auto c = start_collector({b}, {.interval = 0ms, .call_timeout = 1s});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::bad_input);
}

}  // namespace
}  // namespace anygpu
