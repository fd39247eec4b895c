// The sysfs/hwmon sampler on copies of the fixture hosts: the values the fixtures carry, values
// the test rewrites between samples, Intel power from energy deltas, and malformed files.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>

#include "metrics/backend.h"
#include "metrics/collector.h"
#include "probe/probe.h"
#include "test_support.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// A private copy of a fixture, its inventory, and the sysfs directory of a device.
struct Host {
  explicit Host(const std::string& fixture) : root(tmp / "root") {
    test::copy_tree(test::fixture_host(fixture), root);
    inventory = test::probe_root(root);
  }
  HostRoot host() const {
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    return HostRoot(o);
  }
  const Device& device(const std::string& bus) const {
    auto* d = test::find_device(inventory, bus);
    EXPECT_NE(d, nullptr) << bus;
    return *d;
  }
  // The real directory behind sys/bus/pci/devices/<bus> in the copy.
  std::string dir(const std::string& bus) const {
    return fs::canonical(root + "/sys/bus/pci/devices/" + bus).string();
  }
  std::string hwmon(const std::string& bus) const {
    for (const auto& e : fs::directory_iterator(dir(bus) + "/hwmon")) return e.path().string();
    ADD_FAILURE() << "no hwmon under " << bus;
    return {};
  }
  DeviceSample sample(const std::string& bus, metrics::EnergyState& state,
                      std::chrono::steady_clock::time_point now = {}) const {
    auto s = identity_of(device(bus));
    metrics::sample_sysfs_device(host(), device(bus), state, now, s);
    return s;
  }
  DeviceSample sample(const std::string& bus) const {
    metrics::EnergyState state;
    return sample(bus, state);
  }
  TempDir tmp;
  std::string root;
  Inventory inventory;
};

bool has_warning(const DeviceSample& s, const std::string& part) {
  for (const auto& w : s.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

std::string warnings(const DeviceSample& s) {
  std::string out;
  for (const auto& w : s.warnings) out += w + "\n";
  return out;
}

TEST(MetricsSysfs, Mi300xFixtureValues) {
  Host h("mi300x-8x");
  auto s = h.sample("0000:65:00.0");  // index 3: gpu_busy_percent 100
  EXPECT_EQ(s.vendor, "amd");
  EXPECT_EQ(s.index, 3);
  EXPECT_EQ(s.pci_bus_id, "0000:65:00.0");
  ASSERT_TRUE(s.utilization_ratio);
  EXPECT_DOUBLE_EQ(*s.utilization_ratio, 1.0);
  EXPECT_EQ(s.memory_used_bytes, 298844160.0 + 4096 * 3);
  EXPECT_EQ(s.memory_total_bytes, 206141652992.0);
  // No edge sensor on MI300X: the headline is the junction.
  EXPECT_FALSE(s.temperatures_celsius.contains("edge"));
  EXPECT_EQ(s.temperatures_celsius.at("junction"), 41.0);  // 41000 + 1000 * (3 % 3)
  EXPECT_EQ(s.temperatures_celsius.at("mem"), 37.0);       // 36000 + 1000 * (3 % 2)
  EXPECT_EQ(s.temperature_celsius, 41.0);
  EXPECT_EQ(s.power_watts, 140.0);  // power1_input 137 W + 1 W * index
  EXPECT_EQ(s.power_limit_watts, 750.0);
  EXPECT_FALSE(s.energy_joules) << "amdgpu publishes no energy counter here";
  EXPECT_EQ(s.clocks_hertz.at("graphics"), 132e6);
  EXPECT_EQ(s.clocks_hertz.at("memory"), 1300e6);
  EXPECT_TRUE(s.warnings.empty()) << warnings(s);

  auto s1 = h.sample("0000:26:00.0");
  EXPECT_DOUBLE_EQ(*s1.utilization_ratio, 0.12);
}

TEST(MetricsSysfs, RadeonHeadlineIsEdgeAndPowerAverage) {
  Host h("workstation-mixed");
  auto s = h.sample("0000:04:00.0");
  EXPECT_EQ(s.temperature_celsius, 41.0);
  EXPECT_EQ(s.temperatures_celsius.size(), 3u);
  EXPECT_EQ(s.temperatures_celsius.at("junction"), 45.0);
  EXPECT_EQ(s.power_watts, 23.0);  // power1_average
  EXPECT_DOUBLE_EQ(*s.utilization_ratio, 0.03);
  EXPECT_EQ(s.memory_used_bytes, 1207959552.0);
  EXPECT_EQ(s.clocks_hertz.at("graphics"), 500e6);
}

TEST(MetricsSysfs, RewrittenValuesAreSeenAtTheNextSample) {
  Host h("mi300x-8x");
  const std::string bus = "0000:05:00.0";
  auto before = h.sample(bus);
  EXPECT_EQ(before.utilization_ratio, 0.0);
  test::write_file(h.dir(bus) + "/gpu_busy_percent", "73\n");
  test::write_file(h.dir(bus) + "/mem_info_vram_used", "1073741824\n");
  test::write_file(h.hwmon(bus) + "/temp2_input", "88500\n");
  test::write_file(h.hwmon(bus) + "/power1_input", "612000000\n");
  auto after = h.sample(bus);
  EXPECT_DOUBLE_EQ(*after.utilization_ratio, 0.73);
  EXPECT_EQ(after.memory_used_bytes, 1073741824.0);
  EXPECT_EQ(after.temperature_celsius, 88.5);
  EXPECT_EQ(after.power_watts, 612.0);
}

TEST(MetricsSysfs, IntelPowerFromEnergyDeltas) {
  Host h("intel-max-arc");
  const std::string bus = "0000:29:00.0";  // Max 1550, i915: energy1_input, no power file
  metrics::EnergyState state;
  std::chrono::steady_clock::time_point t0{std::chrono::seconds(100)};
  auto first = h.sample(bus, state, t0);
  ASSERT_TRUE(first.energy_joules);
  EXPECT_DOUBLE_EQ(*first.energy_joules, (81234567890.0 + 0x29) / 1e6);
  EXPECT_FALSE(first.power_watts) << "one reading of a counter is no power";
  EXPECT_EQ(first.temperature_celsius, 38.0);  // unlabelled temp1
  EXPECT_EQ(first.clocks_hertz.at("graphics"), 1600e6);

  // 300 J more over 2 s: 150 W.
  test::write_file(h.hwmon(bus) + "/energy1_input", std::to_string(81234567890 + 0x29 + 300000000));
  auto second = h.sample(bus, state, t0 + std::chrono::seconds(2));
  ASSERT_TRUE(second.power_watts) << warnings(second);
  EXPECT_NEAR(*second.power_watts, 150.0, 1e-6);
  EXPECT_NEAR(*second.energy_joules, *first.energy_joules + 300.0, 1e-6);

  // The counter going backwards (driver reload) gives no power, with a reason.
  test::write_file(h.hwmon(bus) + "/energy1_input", "1000");
  auto third = h.sample(bus, state, t0 + std::chrono::seconds(3));
  EXPECT_FALSE(third.power_watts);
  EXPECT_TRUE(has_warning(third, "went backwards")) << warnings(third);
  // … and the next delta counts from the new value again.
  test::write_file(h.hwmon(bus) + "/energy1_input", "5001000");
  auto fourth = h.sample(bus, state, t0 + std::chrono::seconds(4));
  EXPECT_NEAR(*fourth.power_watts, 5.0, 1e-6);
}

TEST(MetricsSysfs, XeFrequencyAndPackageTemperature) {
  Host h("intel-max-arc");
  auto s = h.sample("0000:06:00.0");
  EXPECT_EQ(s.clocks_hertz.at("graphics"), 2000e6);  // tile0/gt0/freq0/cur_freq
  EXPECT_EQ(s.temperatures_celsius.at("pkg"), 44.0);
  EXPECT_EQ(s.temperature_celsius, 44.0);
  EXPECT_FALSE(s.utilization_ratio) << "Intel utilization is not in sysfs";
  EXPECT_FALSE(s.memory_used_bytes);
}

// xe's hwmon channels: energy1/power1 = card, energy2/power2 = pkg; not every part has both
// (Documentation/ABI/testing/sysfs-driver-intel-xe-hwmon, torvalds/linux@2369f05661ef).
TEST(MetricsSysfs, XePackageOnlyEnergyAndLimit) {
  Host h("intel-max-arc");
  const std::string bus = "0000:06:00.0";
  const std::string hw = h.hwmon(bus);
  // An Arc A380 on xe: pkg only, PL1 55 W.
  for (const char* f : {"energy1_input", "power1_max", "power1_rated_max"})
    fs::remove(hw + "/" + f);
  test::write_file(hw + "/energy2_input", "1000000000\n");
  test::write_file(hw + "/energy2_label", "pkg\n");
  test::write_file(hw + "/power2_max", "55000000\n");
  test::write_file(hw + "/power2_label", "pkg\n");
  metrics::EnergyState state;
  std::chrono::steady_clock::time_point t0{std::chrono::seconds(10)};
  auto first = h.sample(bus, state, t0);
  EXPECT_EQ(first.energy_joules, 1000.0) << warnings(first);
  EXPECT_EQ(first.power_limit_watts, 55.0);
  test::write_file(hw + "/energy2_input", "1040000000\n");
  auto second = h.sample(bus, state, t0 + std::chrono::seconds(2));
  ASSERT_TRUE(second.power_watts) << warnings(second);
  EXPECT_NEAR(*second.power_watts, 20.0, 1e-9);
}

// The A770's xe hwmon rewritten as a B580 on kernel 6.16 has it: energy1 (card) reading
// `card_uj` beside a live energy2 (pkg) reading `pkg_uj`.
void card_and_package(const std::string& hw, const char* card_uj, const char* pkg_uj) {
  test::write_file(hw + "/energy1_input", std::string(card_uj) + "\n");
  test::write_file(hw + "/energy1_label", "card\n");
  test::write_file(hw + "/energy2_input", std::string(pkg_uj) + "\n");
  test::write_file(hw + "/energy2_label", "pkg\n");
}

TEST(MetricsSysfs, XeCardCounterStuckAtZeroGivesWayToPackage) {
  Host h("intel-max-arc");
  const std::string bus = "0000:06:00.0";
  const std::string hw = h.hwmon(bus);
  card_and_package(hw, "0", "5000000");
  test::write_file(hw + "/power2_max", "190000000\n");
  auto s = h.sample(bus);
  EXPECT_EQ(s.energy_joules, 5.0) << warnings(s);
  EXPECT_EQ(s.power_limit_watts, 190.0) << "the limit of the domain reported";
  // Once card counts, card is the whole board: it wins.
  test::write_file(hw + "/energy1_input", "7000000\n");
  auto t = h.sample(bus);
  EXPECT_EQ(t.energy_joules, 7.0);
  EXPECT_EQ(t.power_limit_watts, 225.0);  // the fixture's power1_max (card)
}

TEST(MetricsSysfs, SwitchingCounterGivesNoBogusPower) {
  Host h("intel-max-arc");
  const std::string bus = "0000:06:00.0";
  const std::string hw = h.hwmon(bus);
  card_and_package(hw, "0", "900000000");
  metrics::EnergyState state;
  std::chrono::steady_clock::time_point t0{std::chrono::seconds(10)};
  h.sample(bus, state, t0);
  test::write_file(hw + "/energy1_input", "1000000\n");  // card starts counting: 1 J
  auto s = h.sample(bus, state, t0 + std::chrono::seconds(1));
  EXPECT_FALSE(s.power_watts) << "a delta across two counters is not power";
  EXPECT_FALSE(has_warning(s, "backwards")) << warnings(s);
}

TEST(MetricsSysfs, I915PowerLimitIsPower1Max) {
  Host h("intel-max-arc");
  auto s = h.sample("0000:29:00.0");  // Max 1550: power1_max 600 W (sysfs-driver-intel-i915-hwmon)
  EXPECT_EQ(s.power_limit_watts, 600.0) << warnings(s);
}

TEST(MetricsSysfs, RadeonUnlabelledFreq1IsTheGraphicsClock) {
  Host h("workstation-mixed");
  const std::string bus = "0000:04:00.0";
  const std::string hw = h.hwmon(bus);
  // radeon_pm.c registers freq1_input (sclk) with no label.
  test::write_file(hw + "/name", "radeon\n");
  fs::remove(hw + "/freq1_label");
  auto s = h.sample(bus);
  EXPECT_EQ(s.clocks_hertz.count("freq1"), 0u);
  EXPECT_EQ(s.clocks_hertz.at("graphics"), 500e6);
  // Another driver's unlabelled channel keeps its channel name.
  test::write_file(hw + "/name", "amdgpu\n");
  EXPECT_EQ(h.sample(bus).clocks_hertz.at("freq1"), 500e6);
}

TEST(MetricsSysfs, NvidiaHasNothingInSysfs) {
  Host h("h100-8x");
  auto s = h.sample("0000:18:00.0");
  EXPECT_FALSE(s.utilization_ratio || s.memory_used_bytes || s.temperature_celsius ||
               s.power_watts || s.energy_joules);
  EXPECT_TRUE(s.clocks_hertz.empty());
  EXPECT_TRUE(s.warnings.empty()) << warnings(s);
}

TEST(MetricsSysfs, HygonKeepsAmdgpuAttributes) {
  Host h("hygon-dcu");
  ASSERT_FALSE(h.inventory.devices.empty());
  const auto& d = h.inventory.devices.front();
  auto s = h.sample(d.pci.address.str());
  EXPECT_EQ(s.vendor, "hygon");
  EXPECT_EQ(s.utilization_ratio, 0.0);
  EXPECT_EQ(s.memory_used_bytes, 2097152.0);
  EXPECT_EQ(s.memory_total_bytes, 68702699520.0);
  EXPECT_FALSE(s.temperature_celsius) << "the fixture has no Hygon hwmon";
}

// Every malformed value: absent, with a warning naming the file, never a crash or a 0.
struct Malformed {
  const char* file;  // relative to the device ("hwmon/" = its hwmon dir)
  std::string_view content;
  const char* reason;
};

class MetricsSysfsMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(MetricsSysfsMalformed, ValueAbsentWithReason) {
  const auto& m = GetParam();
  Host h("workstation-mixed");
  const std::string bus = "0000:04:00.0";
  std::string rel = m.file;
  std::string path =
      rel.starts_with("hwmon/") ? h.hwmon(bus) + "/" + rel.substr(6) : h.dir(bus) + "/" + rel;
  test::write_file(path, std::string(m.content));
  auto s = h.sample(bus);
  EXPECT_TRUE(has_warning(s, fs::path(path).filename().string())) << warnings(s);
  EXPECT_TRUE(has_warning(s, m.reason)) << warnings(s);
  if (rel == "gpu_busy_percent") {
    EXPECT_FALSE(s.utilization_ratio);
  }
  if (rel == "mem_info_vram_used") {
    EXPECT_FALSE(s.memory_used_bytes);
  }
  if (rel == "hwmon/temp1_input") {
    EXPECT_FALSE(s.temperatures_celsius.contains("edge"));
    EXPECT_EQ(s.temperature_celsius, 45.0) << "falls back to the junction";
  }
  if (rel == "hwmon/power1_average") {
    EXPECT_FALSE(s.power_watts);
  }
  // Everything else still reads.
  EXPECT_EQ(s.temperatures_celsius.at("mem"), 48.0);
}

INSTANTIATE_TEST_SUITE_P(
    Files, MetricsSysfsMalformed,
    ::testing::Values(Malformed{"gpu_busy_percent", "garbage\n", "not a decimal integer"},
                      Malformed{"gpu_busy_percent", "101\n", "outside 0..100"},
                      Malformed{"gpu_busy_percent", "-1\n", "outside"},
                      Malformed{"gpu_busy_percent", "4 2\n", "trailing characters"},
                      Malformed{"gpu_busy_percent", "", "empty"},
                      Malformed{"mem_info_vram_used", "18446744073709551615\n", "out of range"},
                      Malformed{"mem_info_vram_used", "99999999999999999999999\n", "out of range"},
                      Malformed{"mem_info_vram_used", "40000000000\n", "more than the total"},
                      Malformed{"mem_info_vram_used", "12.5\n", "trailing characters"},
                      Malformed{"hwmon/temp1_input", "-300000\n", "outside"},
                      Malformed{"hwmon/temp1_input", "0x1f\n", "trailing characters"},
                      Malformed{"hwmon/temp1_input", "-", "not a decimal integer"},  // cut
                      Malformed{"hwmon/power1_average", "+-5\n", "not a decimal integer"},
                      Malformed{"hwmon/power1_average", "\x01\x02\x03", "not text"},
                      // NUL padding after a value, as a real RX 6900 XT printed.
                      Malformed{"gpu_busy_percent", std::string_view("3\n\0\0\0\0", 6), "NUL"}),
    // Stable names (gpu_busy_percent_0, hwmon_temp1_input_9, …), not the parameter's bytes.
    [](const auto& info) {
      std::string n = info.param.file;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n + "_" + std::to_string(info.index);
    });

TEST(MetricsSysfs, UnreadableFileIsAbsentWithReason) {
  Host h("workstation-mixed");
  const std::string bus = "0000:04:00.0";
  // A directory where a value belongs (EISDIR): absent, with a reason.
  std::string f = h.dir(bus) + "/gpu_busy_percent";
  fs::remove(f);
  fs::create_directory(f);
  auto s = h.sample(bus);
  EXPECT_FALSE(s.utilization_ratio);
  EXPECT_TRUE(has_warning(s, "gpu_busy_percent")) << warnings(s);
}

TEST(MetricsSysfs, SuspendedDeviceIsNotWoken) {
  Host h("laptop-hybrid");
  const Device& dgpu = h.device("0000:01:00.0");
  ASSERT_EQ(dgpu.status, DeviceStatus::suspended);
  auto backend = make_sysfs_backend(h.host(), "nvidia", "hwmon", {dgpu});
  auto samples = backend->sample();
  ASSERT_TRUE(samples.ok());
  ASSERT_EQ(samples->size(), 1u);
  EXPECT_TRUE(has_warning(samples->front(), "runtime-suspended")) << warnings(samples->front());
}

}  // namespace
}  // namespace anygpu
