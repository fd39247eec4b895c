// Intel tiles, Ascend vNPUs and the MI308X CPX capture on their fixture hosts: an i915 Max 1550
// card lists tiles as gt/gt0 and gt/gt1, an Xe card as tile0.., a vNPU is /dev/vdavinci<id>; then
// copies whose files lie, each a warning naming the file and the device whole.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "select/select.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu::test {
namespace {

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

std::string env(const Selection& s, const std::string& name) {
  for (const auto& [k, v] : s.env)
    if (k == name) return v;
  return "(unset)";
}

Selection pick(const Inventory& inv, const std::string& text) {
  auto c = parse_accelerator_config(text, "accelerator-config.yaml");
  EXPECT_TRUE(c.ok()) << c.error().message;
  auto s = select_devices(inv, c.ok() ? *c : AcceleratorConfig{}, {});
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

const std::string kMax0 = "0000:29:00.0", kMax1 = "0000:9a:00.0", kArc = "0000:06:00.0";
const std::string kGt = "/sys/bus/pci/devices/0000:29:00.0/drm/card1/gt";

TEST(IntelTiles, MaxCardsAreTwoTilesEach) {
  const auto& inv = fixture_inventory("intel-max-arc");
  int card = 1;
  for (const auto& bus : {kMax0, kMax1}) {
    SCOPED_TRACE(bus);
    const auto* d = find_device(inv, bus);
    ASSERT_NE(d, nullptr);
    ASSERT_TRUE(d->partitioning);
    EXPECT_EQ(d->partitioning->mode, "tiles");
    EXPECT_FALSE(d->partitioning->memory_mode);
    ASSERT_EQ(d->partitions.size(), 2u);
    for (int t = 0; t < 2; ++t) {
      const auto& p = d->partitions[t];
      EXPECT_EQ(p.index, t);
      EXPECT_EQ(p.id, bus + "/" + std::to_string(t));
      // A tile has no node of its own: the card's.
      EXPECT_EQ(p.device_nodes,
                (std::vector<std::string>{"/dev/dri/card" + std::to_string(card),
                                          "/dev/dri/renderD" + std::to_string(127 + card)}));
      EXPECT_EQ(p.memory_total_bytes, uint64_t{64} << 30);  // half the card's 128 GiB
    }
    ++card;
  }
  // The Arc A770 (xe) has one tile: a device as before.
  EXPECT_FALSE(find_device(inv, kArc)->partitioning);
}

// Level Zero's driver default is FLAT (F-40): every tile a root device, numbered after the
// cards before it in PCI order; the variable is set so no default decides.
TEST(IntelTiles, AffinityMaskTakesFlatNumbers) {
  const auto& inv = fixture_inventory("intel-max-arc");
  auto all = pick(inv, "devices: all\n");
  EXPECT_EQ(env(all, "ZE_AFFINITY_MASK"), "0,1,2,3,4");  // Arc, 29:00.0/0-1, 9a:00.0/0-1
  EXPECT_EQ(env(all, "ZE_FLAT_DEVICE_HIERARCHY"), "FLAT");
  auto one = pick(inv, "devices: [\"0000:9a:00.0/1\"]\n");
  EXPECT_EQ(env(one, "ZE_AFFINITY_MASK"), "4");
  auto two = pick(inv, "devices: 2\n");  // the two tiles of one card
  EXPECT_EQ(env(two, "ANYGPU_DEVICES"), kMax0 + "/0," + kMax0 + "/1");
  EXPECT_EQ(env(two, "ZE_AFFINITY_MASK"), "1,2");
}

TEST(IntelTiles, HostWithoutTilesKeepsItsIndices) {
  const auto& inv = fixture_inventory("intel-flex-sriov");
  auto s = pick(inv, "devices: all\n");
  EXPECT_EQ(env(s, "ZE_FLAT_DEVICE_HIERARCHY"), "(unset)");
}

TEST(IntelTiles, GapInTileNumbersIsAWarning) {
  LyingHost h("intel-max-arc");
  h.write(kGt + "/gt3/rps_cur_freq_mhz", "1600\n");  // gt0, gt1, gt3
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, kGt + ": lists 3 tiles (gt0, gt1, gt3), more than any Intel GPU has"))
      << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, kMax0)->partitioning);
  EXPECT_TRUE(find_device(inv, kMax1)->partitioning);  // the other card keeps its tiles
}

TEST(IntelTiles, TilesNotNumberedFromZeroAreAWarning) {
  LyingHost h("intel-max-arc");
  std::string xe = "/sys/bus/pci/devices/0000:06:00.0";
  h.write(xe + "/tile2/uevent", "");  // tile0, tile2
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, xe + ": lists tiles tile0, tile2, not numbered from 0 without gaps"))
      << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, kArc)->partitioning);
}

TEST(IntelTiles, XeTilesAreReadToo) {
  LyingHost h("intel-max-arc");
  h.write("/sys/bus/pci/devices/0000:06:00.0/tile1/uevent", "");
  auto inv = h.probe();
  const auto* arc = find_device(inv, kArc);
  ASSERT_TRUE(arc->partitioning);
  EXPECT_EQ(arc->partitions.size(), 2u);
}

TEST(AscendVnpu, VnpusAreThePartitionsOfTheirNpu) {
  const auto& inv = fixture_inventory("ascend-910b-vnpu");
  EXPECT_TRUE(inv.diagnostics.warnings().empty()) << warnings_of(inv);
  const auto* npu0 = find_device(inv, "0000:c1:00.0");  // physical id 0
  const auto* npu1 = find_device(inv, "0000:c2:00.0");  // physical id 1
  ASSERT_TRUE(npu0 && npu1);
  ASSERT_TRUE(npu0->partitioning);
  EXPECT_EQ(npu0->partitioning->mode, "vnpu");
  ASSERT_EQ(npu0->partitions.size(), 2u);
  EXPECT_EQ(npu0->partitions[1].id, "0000:c1:00.0/1");
  EXPECT_EQ(npu0->partitions[1].device_nodes, std::vector<std::string>{"/dev/vdavinci101"});
  ASSERT_EQ(npu1->partitions.size(), 4u);
  EXPECT_EQ(npu1->partitions[0].device_nodes, std::vector<std::string>{"/dev/vdavinci116"});
  EXPECT_EQ(npu1->partitions[3].index, 3);
  EXPECT_FALSE(npu1->partitions[3].profile);  // templates are DCMI's, absent without it
  EXPECT_FALSE(find_device(inv, "0000:01:00.0")->partitioning);
}

TEST(AscendVnpu, VnpusAreNotGivenAHostIndex) {
  const auto& inv = fixture_inventory("ascend-910b-vnpu");
  auto s = pick(inv, "devices: all\n");
  // The six whole NPUs; the vNPUs have no documented host numbering.
  EXPECT_EQ(env(s, "ASCEND_RT_VISIBLE_DEVICES"), "0,1,2,3,4,5");
  EXPECT_NE(join(s.reasons, "\n").find("ASCEND_VISIBLE_DEVICES=<vnpu id>"), std::string::npos)
      << join(s.reasons, "\n");
}

TEST(AscendVnpu, NodesThatLieAreWarnings) {
  LyingHost h("ascend-910b-vnpu");
  h.write("/dev/vdavinci5", "");
  h.write("/dev/vdavinci228", "");  // NPU 8: not on this host
  h.write("/dev/vdavinciX", "");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, "/dev/vdavinci5: vNPU id 5 is outside")) << warnings_of(inv);
  EXPECT_TRUE(warned(inv, "/dev/vdavinci228: a vNPU of NPU 8, which this host does not have"))
      << warnings_of(inv);
  EXPECT_TRUE(warned(inv, "/dev/vdavinciX: 'vdavinciX' is not a vNPU node")) << warnings_of(inv);
  EXPECT_EQ(find_device(inv, "0000:c2:00.0")->partitions.size(), 4u);
}

const std::vector<std::string> kMi308 = {"0000:0a:00.0", "0000:80:00.0", "0000:a4:00.0",
                                         "0000:c8:00.0", "0001:0b:00.0", "0001:81:00.0",
                                         "0001:a5:00.0", "0001:c9:00.0"};

// The public capture, exactly: 4 partitions per GPU on two PCI domains, render minors striding 8
// with 4 used, HIP ids in KFD node order.
TEST(AmdPartitions, Mi308xCaptureGivesFourPartitionsPerGpu) {
  const auto& inv = fixture_inventory("mi308x-8x-cpx");
  EXPECT_TRUE(inv.diagnostics.warnings().empty()) << warnings_of(inv);
  ASSERT_EQ(inv.devices.size(), 8u);
  for (size_t g = 0; g < kMi308.size(); ++g) {
    SCOPED_TRACE(kMi308[g]);
    const auto* d = find_device(inv, kMi308[g]);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->name, "AMD Instinct MI308X");
    EXPECT_EQ(d->arch, "gfx942");
    ASSERT_TRUE(d->partitioning);
    EXPECT_EQ(d->partitioning->mode, "CPX");
    EXPECT_FALSE(d->partitioning->memory_mode);
    ASSERT_EQ(d->partitions.size(), 4u);
    for (size_t p = 0; p < 4; ++p) {
      const auto& part = d->partitions[p];
      EXPECT_EQ(part.id, kMi308[g] + "/" + std::to_string(p));
      EXPECT_EQ(part.render_node, "/dev/dri/renderD" + std::to_string(128 + 8 * g + p));
      EXPECT_EQ(part.runtime_index, static_cast<int>(4 * g + p));
      EXPECT_FALSE(part.memory_total_bytes);  // local_mem_size 0 in the capture
    }
  }
}

}  // namespace
}  // namespace anygpu::test
