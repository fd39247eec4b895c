// Partitions on the fixture hosts: the 8x MI300X CPX capture (one GPU short of a partition,
// as captured) and an H100 host with MIG on three GPUs; then copies whose partition files lie,
// where the device must stay whole with a warning naming the file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace anygpu::test {
namespace {

const std::vector<std::string> kCpxGpus = {"0000:05:00.0", "0000:27:00.0", "0000:47:00.0",
                                           "0000:65:00.0", "0000:85:00.0", "0000:a7:00.0",
                                           "0000:c7:00.0", "0000:e5:00.0"};

std::string warnings_of(const Inventory& inv) {
  std::string out;
  for (const auto& w : inv.diagnostics.warnings()) out += w + "\n";
  return out;
}

bool warned(const Inventory& inv, const std::string& needle) {
  return warnings_of(inv).find(needle) != std::string::npos;
}

class LyingHost {
 public:
  explicit LyingHost(const std::string& fixture) : root_(tmp_ / "root") {
    copy_tree(fixture_host(fixture), root_);
  }
  void write(const std::string& host_path, const std::string& text) {
    write_file(root_ + host_path, text);
  }
  Inventory probe() const { return probe_root(root_); }

 private:
  TempDir tmp_;
  std::string root_;
};

TEST(AmdPartitions, CpxCaptureGivesEightPartitionsPerGpuButOne) {
  const auto& inv = fixture_inventory("mi300x-8x-cpx");
  ASSERT_EQ(inv.devices.size(), 8u);
  for (size_t g = 0; g < kCpxGpus.size(); ++g) {
    const auto* d = find_device(inv, kCpxGpus[g]);
    ASSERT_NE(d, nullptr) << kCpxGpus[g];
    SCOPED_TRACE(kCpxGpus[g]);
    ASSERT_TRUE(d->partitioning);
    EXPECT_EQ(d->partitioning->mode, "CPX");
    EXPECT_EQ(d->partitioning->memory_mode, "NPS4");
    EXPECT_EQ(d->arch, "gfx942");
    // The capture's GPU at 0xe5 has 7 KFD nodes (render minor 191 absent).
    ASSERT_EQ(d->partitions.size(), g == 7 ? 7u : 8u);
    for (size_t p = 0; p < d->partitions.size(); ++p) {
      const auto& part = d->partitions[p];
      EXPECT_EQ(part.index, static_cast<int>(p));
      EXPECT_EQ(part.id, kCpxGpus[g] + "/" + std::to_string(p));
      std::string render = "/dev/dri/renderD" + std::to_string(128 + 8 * g + p);
      std::string card = "/dev/dri/card" + std::to_string(1 + 8 * g + p);
      EXPECT_EQ(part.render_node, render);
      EXPECT_EQ(part.device_nodes, (std::vector<std::string>{card, render}));
      // KFD's local_mem_size is 0 in the capture, and nothing else knows: absent, never 0.
      EXPECT_FALSE(part.memory_total_bytes);
      EXPECT_FALSE(part.uuid);
      EXPECT_FALSE(part.profile);
    }
  }
  EXPECT_TRUE(warned(inv,
                     "0000:e5:00.0: CPX shows 7 partitions in KFD where the same model "
                     "shows 8"))
      << warnings_of(inv);
  EXPECT_EQ(inv.diagnostics.warnings().size(), 1u) << warnings_of(inv);
}

TEST(AmdPartitions, SpxHostStaysWhole) {
  for (const auto& d : fixture_inventory("mi300x-8x").devices) {
    EXPECT_FALSE(d.partitioning) << d.pci.address.str();
    EXPECT_TRUE(d.partitions.empty());
  }
}

TEST(AmdPartitions, UnknownModeIsAWarningAndTheDeviceStaysWhole) {
  LyingHost h("mi300x-8x-cpx");
  std::string file = "/sys/bus/pci/devices/0000:27:00.0/current_compute_partition";
  h.write(file, "XPX\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, file + ": unknown compute partition mode 'XPX'")) << warnings_of(inv);
  const auto* d = find_device(inv, "0000:27:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->partitioning);
  EXPECT_TRUE(d->partitions.empty());
  EXPECT_EQ(find_device(inv, "0000:05:00.0")->partitions.size(), 8u);  // the others keep theirs
}

TEST(AmdPartitions, ModeTheDeviceCannotHaveIsAWarning) {
  LyingHost h("mi300x-8x-cpx");
  std::string file = "/sys/bus/pci/devices/0000:05:00.0/current_compute_partition";
  h.write(file, "TPX\n");  // not among available_compute_partition
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, file + ": TPX is not a mode this device can have")) << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:05:00.0")->partitioning);
}

TEST(AmdPartitions, CountNotMatchingKfdIsAWarning) {
  LyingHost h("mi300x-8x-cpx");
  std::string file = "/sys/bus/pci/devices/0000:47:00.0/current_compute_partition";
  h.write(file, "DPX\n");  // KFD lists 8 partitions of this GPU
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, file + ": says DPX but KFD lists 8 node(s) for this device (at most 2)"))
      << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:47:00.0")->partitioning);
  // SPX cannot have eight KFD nodes either.
  h.write(file, "SPX\n");
  inv = h.probe();
  EXPECT_TRUE(warned(inv, file + ": says SPX but KFD lists 8 node(s)")) << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:47:00.0")->partitioning);
}

TEST(AmdPartitions, DuplicatePartitionInKfdIsAWarning) {
  LyingHost h("mi300x-8x-cpx");
  // Node 3 (partition 1 of bus 0x05) claims partition 0's location.
  std::string props = "/sys/class/kfd/kfd/topology/nodes/3/properties";
  h.write(props,
          "cpu_cores_count 0\nsimd_count 152\ngfx_target_version 90402\n"
          "location_id 1280\ndomain 0\ndrm_render_minor 129\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, ": partition 0 appears twice in KFD")) << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:05:00.0")->partitioning);
}

TEST(AmdPartitions, MoreMemoryThanComputePartitionsLeavesMemoryModeOut) {
  LyingHost h("mi300x-8x-cpx");
  h.write("/sys/bus/pci/devices/0000:e5:00.0/current_memory_partition", "NPS8\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv,
                     "0000:e5:00.0/current_memory_partition: NPS8 has more memory "
                     "partitions than the 7 compute partitions"))
      << warnings_of(inv);
  const auto* d = find_device(inv, "0000:e5:00.0");
  ASSERT_TRUE(d->partitioning);
  EXPECT_FALSE(d->partitioning->memory_mode);
  EXPECT_EQ(d->partitions.size(), 7u);
}

TEST(MigPartitions, InstancesFromCapabilityProcfs) {
  const auto& inv = fixture_inventory("h100-8x-mig");
  EXPECT_TRUE(inv.diagnostics.warnings().empty()) << warnings_of(inv);
  const auto* g0 = find_device(inv, "0000:18:00.0");
  ASSERT_TRUE(g0 && g0->partitioning);
  EXPECT_EQ(g0->partitioning->mode, "mig");
  EXPECT_FALSE(g0->partitioning->memory_mode);
  ASSERT_EQ(g0->partitions.size(), 7u);
  // Seven 1g instances, GI ids 7..13 with CI 0: minors 3+9*gi and 3+9*gi+1.
  for (int i = 0; i < 7; ++i) {
    const auto& p = g0->partitions[i];
    EXPECT_EQ(p.index, i);
    EXPECT_EQ(p.id, "0000:18:00.0/" + std::to_string(i));
    int gi = 7 + i;
    EXPECT_EQ(p.device_nodes,
              (std::vector<std::string>{
                  "/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap" + std::to_string(3 + 9 * gi),
                  "/dev/nvidia-caps/nvidia-cap" + std::to_string(4 + 9 * gi)}));
    EXPECT_FALSE(p.profile);  // NVML knows profiles, UUIDs and memory; the kernel does not
    EXPECT_FALSE(p.uuid);
    EXPECT_FALSE(p.memory_total_bytes);
    EXPECT_FALSE(p.render_node);
  }
  const auto* g1 = find_device(inv, "0000:2a:00.0");
  ASSERT_TRUE(g1 && g1->partitioning);
  ASSERT_EQ(g1->partitions.size(), 3u);  // GI 1 / CI 0, GI 2 / CI 0, GI 2 / CI 1
  EXPECT_EQ(g1->partitions[2].device_nodes,
            (std::vector<std::string>{"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap156",
                                      "/dev/nvidia-caps/nvidia-cap158"}));
  const auto* g2 = find_device(inv, "0000:3a:00.0");
  ASSERT_TRUE(g2 && g2->partitioning);
  ASSERT_EQ(g2->partitions.size(), 1u);  // GI 1 has no compute instance yet: not a device
  EXPECT_EQ(g2->partitions[0].device_nodes[1], "/dev/nvidia-caps/nvidia-cap291");
  for (const auto* bus : {"0000:5d:00.0", "0000:9a:00.0", "0000:db:00.0"})
    EXPECT_FALSE(find_device(inv, bus)->partitioning) << bus;
}

TEST(MigPartitions, PlainH100HasNone) {
  for (const auto& d : fixture_inventory("h100-8x").devices) EXPECT_FALSE(d.partitioning);
}

TEST(MigPartitions, AccessMinorOutsideTheFormulaIsAWarning) {
  LyingHost h("h100-8x-mig");
  std::string file = "/proc/driver/nvidia/capabilities/gpu1/mig/gi2/ci1/access";
  h.write(file, "DeviceFileMinor: 200\nDeviceFileMode: 292\nDeviceFileModify: 1\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, file + ": minor 200 is not the driver's 158")) << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:2a:00.0")->partitioning);
  EXPECT_EQ(find_device(inv, "0000:18:00.0")->partitions.size(), 7u);
}

TEST(MigPartitions, MalformedAccessFileIsAWarning) {
  LyingHost h("h100-8x-mig");
  std::string file = "/proc/driver/nvidia/capabilities/gpu0/mig/gi9/access";
  h.write(file, "garbage\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, file + ": no DeviceFileMinor line")) << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:18:00.0")->partitioning);
}

TEST(MigPartitions, MigMinorsThatLieHideEveryInstance) {
  LyingHost h("h100-8x-mig");
  h.write("/proc/driver/nvidia-caps/mig-minors", "config 1\nmonitor 2\ngpu0/gi7/access 99\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, "/proc/driver/nvidia-caps/mig-minors: line 3: minor 99"))
      << warnings_of(inv);
  for (const auto& d : inv.devices) EXPECT_FALSE(d.partitioning) << d.pci.address.str();
}

TEST(MigPartitions, InstanceMissingFromMigMinorsIsAWarning) {
  LyingHost h("h100-8x-mig");
  h.write("/proc/driver/nvidia-caps/mig-minors", "config 1\nmonitor 2\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, "is missing from /proc/driver/nvidia-caps/mig-minors"))
      << warnings_of(inv);
  for (const auto& d : inv.devices) EXPECT_FALSE(d.partitioning) << d.pci.address.str();
}

TEST(MigPartitions, MissingNvidiaCapsMajorIsAWarning) {
  LyingHost h("h100-8x-mig");
  h.write("/proc/devices", "Character devices:\n195 nvidia-frontend\n\nBlock devices:\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, "/proc/devices: no character device 'nvidia-caps'")) << warnings_of(inv);
  EXPECT_EQ(find_device(inv, "0000:18:00.0")->partitions.size(), 7u);
}

}  // namespace
}  // namespace anygpu::test
