// Per-partition metrics on a MIG host: the h100-8x-mig fixture with the mock NVML of
// tests/mocklibs/nvml_mig.cc loaded through the production path (worker and all). Each MIG
// instance gets its own memory, read on its own NVML handle, under the id and index `detect`
// gives it; what NVML has per parent GPU only stays on the parent.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "metrics/collector.h"
#include "metrics/partition_samples.h"
#include "metrics/prometheus.h"
#include "metrics/render.h"
#include "test_support.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;

constexpr double kMigTestMiB = 1048576.0;

struct MigMetricsHost {
  MigMetricsHost() : root(tmp / "root") {
    test::copy_tree(test::fixture_host("h100-8x-mig"), root);
    auto dest = root + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";
    fs::create_directories(fs::path(dest).parent_path());
    fs::copy_file(test::mock_library("mock_nvml_mig.so"), dest);
  }
  HostOptions options() const {
    HostOptions o;
    o.root = root;
    o.library_timeout = std::chrono::milliseconds(5000);
    return o;
  }
  test::TempDir tmp;
  std::string root;
};

const DeviceSample* find_sample(const MetricsSnapshot& s, const std::string& bus) {
  for (const auto& d : s.devices)
    if (d.pci_bus_id == bus) return &d;
  return nullptr;
}

TEST(MetricsMig, EachInstanceHasItsOwnMemoryAndTheParentKeepsTheRest) {
  MigMetricsHost h;
  auto snap = sample_once(h.options(), {});
  ASSERT_TRUE(snap.ok()) << snap.error().message;
  const auto* gpu1 = find_sample(*snap, "0000:2a:00.0");
  ASSERT_NE(gpu1, nullptr);
  for (const auto& w : gpu1->warnings) ADD_FAILURE() << w;
  ASSERT_EQ(gpu1->partitions.size(), 3u);
  const auto& split = gpu1->partitions[2];  // GI 2, CI 1
  EXPECT_EQ(split.index, 2);
  EXPECT_EQ(split.id, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21");
  EXPECT_EQ(split.profile, "2c.3g.40gb");
  EXPECT_EQ(split.memory_used_bytes, 768 * kMigTestMiB);
  EXPECT_EQ(split.memory_total_bytes, 40802189312.0);
  EXPECT_EQ(gpu1->partitions[0].memory_used_bytes, 2048 * kMigTestMiB);
  EXPECT_EQ(gpu1->partitions[1].memory_used_bytes, 512 * kMigTestMiB);
  // The parent's own: temperature and power; no utilisation on a MIG-enabled GPU (absent, not 0).
  EXPECT_EQ(gpu1->memory_used_bytes, (2048 + 512 + 768) * kMigTestMiB);
  EXPECT_EQ(gpu1->temperature_celsius, 31.0);
  EXPECT_EQ(gpu1->power_watts, 101.0);
  EXPECT_FALSE(gpu1->utilization_ratio);
  const auto* gpu0 = find_sample(*snap, "0000:18:00.0");
  ASSERT_NE(gpu0, nullptr);
  ASSERT_EQ(gpu0->partitions.size(), 7u);
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(gpu0->partitions[i].memory_used_bytes, (101 + i) * kMigTestMiB);
  const auto* gpu3 = find_sample(*snap, "0000:5d:00.0");  // MIG off
  ASSERT_NE(gpu3, nullptr);
  EXPECT_TRUE(gpu3->partitions.empty());
  EXPECT_DOUBLE_EQ(*gpu3->utilization_ratio, 0.3);

  auto prom = render_prometheus(*snap, std::chrono::system_clock::now());
  EXPECT_NE(
      prom.find("\nanygpu_gpu_memory_used_bytes{vendor=\"nvidia\",gpu=\"1\",pci_bus_id=\"0000:"
                "2a:00.0\",uuid=\"GPU-"),
      std::string::npos)
      << prom;
  EXPECT_NE(
      prom.find("model=\"NVIDIA H100 80GB "
                "HBM3\",partition=\"2\",partition_id=\"MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21\","
                "profile=\"2c.3g.40gb\"} 805306368\n"),
      std::string::npos)
      << prom;
  // Only the memory families carry partitions.
  std::istringstream lines(prom);
  int partition_series = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("partition=\"") == std::string::npos) continue;
    ++partition_series;
    EXPECT_TRUE(line.starts_with("anygpu_gpu_memory_used_bytes{") ||
                line.starts_with("anygpu_gpu_memory_total_bytes{"))
        << line;
  }
  EXPECT_EQ(partition_series, 2 * 11);

  auto j = metrics_to_json(*snap);
  const auto& parts = j["devices"][1]["partitions"];
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2]["id"], "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21");
  EXPECT_EQ(parts[2]["memory_used_bytes"], 805306368);
  EXPECT_FALSE(parts[2].contains("temperature_celsius"));
  EXPECT_FALSE(parts[2].contains("utilization_ratio"));
  EXPECT_FALSE(j["devices"][3].contains("partitions"));

  auto table = metrics_to_table(*snap);
  EXPECT_NE(table.find("\n  partition 2: MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21, 2c.3g.40gb, "
                       "memory 0.8/38.0 GiB\n"),
            std::string::npos)
      << table;
}

// Discovery names partitions: a sampled instance it did not find is left out, one it found
// that the library did not sample stays listed without values; both are said.
TEST(MetricsMig, SamplesMatchDiscoveredInstancesByTheirIds) {
  Device dev;
  dev.partitioning = Partitioning{"mig", std::nullopt};
  Partition a;
  a.index = 0;
  a.id = "MIG-a";
  a.profile = "3g.40gb";
  a.gpu_instance = 1;
  a.compute_instance = 0;
  Partition b = a;
  b.index = 1;
  b.id = "0000:2a:00.0/1";
  b.profile.reset();
  b.gpu_instance = 2;
  dev.partitions = {a, b};
  PartitionSample s1;
  s1.gpu_instance = 1;
  s1.memory_used_bytes = 5;
  PartitionSample stray;
  stray.gpu_instance = 9;
  stray.compute_instance = 3;
  stray.memory_used_bytes = 7;
  DeviceSample out;
  attach_partition_samples(out, {stray, s1}, dev, "nvml");
  ASSERT_EQ(out.partitions.size(), 2u);
  EXPECT_EQ(out.partitions[0].id, "MIG-a");
  EXPECT_EQ(out.partitions[0].memory_used_bytes, 5.0);
  EXPECT_EQ(out.partitions[1].id, "0000:2a:00.0/1");
  EXPECT_FALSE(out.partitions[1].memory_used_bytes);
  ASSERT_EQ(out.warnings.size(), 2u);
  EXPECT_NE(out.warnings[0].find("no sample of MIG instance GI 2 CI 0 (partition 1)"),
            std::string::npos)
      << out.warnings[0];
  EXPECT_NE(out.warnings[1].find("GI 9 CI 3 that discovery did not find"), std::string::npos)
      << out.warnings[1];

  Device plain;  // no MIG: nothing attached, a stray sample said
  DeviceSample none;
  attach_partition_samples(none, {}, plain, "nvml");
  EXPECT_TRUE(none.partitions.empty());
  EXPECT_TRUE(none.warnings.empty());
}

}  // namespace
}  // namespace anygpu
