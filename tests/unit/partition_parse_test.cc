// The partition files' parsers: AMD mode files, nvidia-caps mig-minors, access files and
// /proc/devices, each with the malformed input a lying or damaged host gives.
#include <gtest/gtest.h>

#include "probe/partition_parse.h"

namespace anygpu {
namespace {

TEST(AmdPartitionParse, ComputeModeIsOneOfTheKernelsModes) {
  EXPECT_EQ(*parse_amd_compute_mode("CPX\n"), "CPX");
  EXPECT_EQ(*parse_amd_compute_mode("dpx"), "DPX");  // the ROCm plugin writes lower case
  EXPECT_FALSE(parse_amd_compute_mode("XPX").ok());
  EXPECT_FALSE(parse_amd_compute_mode("").ok());
  EXPECT_FALSE(parse_amd_compute_mode("CPX DPX").ok());
  EXPECT_NE(parse_amd_compute_mode("SP\x1bX").error().message.find("\\x1b"), std::string::npos);
}

TEST(AmdPartitionParse, AvailableModesAreAListOfKnownModes) {
  auto modes = parse_amd_compute_modes("SPX, DPX, QPX, CPX\n");
  ASSERT_TRUE(modes.ok());
  EXPECT_EQ(*modes, (std::vector<std::string>{"SPX", "DPX", "QPX", "CPX"}));
  EXPECT_FALSE(parse_amd_compute_modes("SPX, , CPX").ok());
  EXPECT_FALSE(parse_amd_compute_modes("SPX, 8PX").ok());
}

TEST(AmdPartitionParse, MemoryModeUnknownIsAnError) {
  EXPECT_EQ(*parse_amd_memory_mode("NPS4\n"), "NPS4");
  EXPECT_FALSE(parse_amd_memory_mode("UNKNOWN").ok());
  EXPECT_FALSE(parse_amd_memory_mode("NPS3").ok());
  EXPECT_EQ(amd_memory_partitions("NPS8"), 8);
}

TEST(AmdPartitionParse, ModesMakeTheirCounts) {
  EXPECT_EQ(amd_partitions_in_mode("SPX"), 1);
  EXPECT_EQ(amd_partitions_in_mode("DPX"), 2);
  EXPECT_EQ(amd_partitions_in_mode("TPX"), 3);
  EXPECT_EQ(amd_partitions_in_mode("QPX"), 4);
  EXPECT_EQ(amd_partitions_in_mode("CPX"), std::nullopt);
}

TEST(MigParse, FormulaMatchesTheDriversPublishedMinors) {
  // Real mig-minors excerpts quoted in facts F-2.
  EXPECT_EQ(mig_cap_minor(3, 3, 3), 439);
  EXPECT_EQ(mig_cap_minor(3, 3, 4), 440);
  EXPECT_EQ(mig_cap_minor(6, 11, 5), 918);
  EXPECT_EQ(mig_cap_minor(0, 1, std::nullopt), 12);
  EXPECT_EQ(mig_cap_minor(0, 2, 0), 22);
  EXPECT_EQ(mig_cap_minor(0, 0, std::nullopt), 3);
}

TEST(MigParse, MigMinorsReadsGiAndCiLines) {
  auto caps = parse_mig_minors(
      "config 1\nmonitor 2\ngpu0/gi0/access 3\ngpu0/gi0/ci0/access 4\ngpu3/gi3/ci4/access 440\n");
  ASSERT_TRUE(caps.ok()) << caps.error().message;
  ASSERT_EQ(caps->size(), 3u);
  EXPECT_EQ((*caps)[0], (MigCap{0, 0, std::nullopt, 3}));
  EXPECT_EQ((*caps)[2], (MigCap{3, 3, 4, 440}));
}

TEST(MigParse, MigMinorsRefusesAMinorOutsideTheFormula) {
  auto caps = parse_mig_minors("config 1\ngpu0/gi1/access 13\n");
  ASSERT_FALSE(caps.ok());
  EXPECT_NE(caps.error().message.find("line 2"), std::string::npos) << caps.error().message;
  EXPECT_NE(caps.error().message.find("12"), std::string::npos);
}

TEST(MigParse, MigMinorsRefusesMalformedLines) {
  EXPECT_FALSE(parse_mig_minors("gpu0/gi0/access\n").ok());
  EXPECT_FALSE(parse_mig_minors("gpu0/gi0/access x\n").ok());
  EXPECT_FALSE(parse_mig_minors("gpu32/gi0/access 4323\n").ok());   // 32 GPUs at most
  EXPECT_FALSE(parse_mig_minors("gpu0/gi15/access 138\n").ok());    // 15 GIs at most
  EXPECT_FALSE(parse_mig_minors("gpu0/gi0/ci8/access 12\n").ok());  // 8 CIs at most
  EXPECT_FALSE(parse_mig_minors("gpu0/gx0/access 3\n").ok());
  EXPECT_FALSE(parse_mig_minors("gpu0/gi0/ci0/ci0/access 4\n").ok());
  EXPECT_TRUE(parse_mig_minors("").ok());
}

TEST(MigParse, AccessFileGivesItsMinor) {
  EXPECT_EQ(*parse_nv_cap_access_minor("DeviceFileMinor: 13\nDeviceFileMode: 292\n"
                                       "DeviceFileModify: 1\n"),
            13);
  EXPECT_FALSE(parse_nv_cap_access_minor("DeviceFileMode: 292\n").ok());
  EXPECT_FALSE(parse_nv_cap_access_minor("DeviceFileMinor: -1\n").ok());
  EXPECT_FALSE(parse_nv_cap_access_minor("DeviceFileMinor: 99999999999\n").ok());
}

TEST(MigParse, ProcDevicesMajorIsTheExactCharacterDevice) {
  std::string devices =
      "Character devices:\n  1 mem\n234 nvidia-caps-imex-channels\n235 nvidia-caps\n\n"
      "Block devices:\n  8 nvidia-caps\n";
  EXPECT_EQ(*parse_proc_devices_major(devices, "nvidia-caps"), 235);
  EXPECT_EQ(*parse_proc_devices_major(devices, "nvidia-caps-imex-channels"), 234);
  EXPECT_FALSE(parse_proc_devices_major("Character devices:\n  1 mem\nBlock devices:\n"
                                        "  8 nvidia-caps\n",
                                        "nvidia-caps")
                   .ok());
  EXPECT_FALSE(parse_proc_devices_major("Character devices:\nx nvidia-caps\n", "nvidia-caps").ok());
}

TEST(SriovParse, CountIsOneDecimalWithinTheRegister) {
  EXPECT_EQ(*parse_sriov_count("31\n"), 31);
  EXPECT_EQ(*parse_sriov_count("0"), 0);
  EXPECT_EQ(*parse_sriov_count("65535\n"), 65535);
  EXPECT_FALSE(parse_sriov_count("65536").ok());  // TotalVFs and NumVFs are 16 bits wide
  EXPECT_FALSE(parse_sriov_count("").ok());
  EXPECT_FALSE(parse_sriov_count("-1").ok());
  EXPECT_FALSE(parse_sriov_count("0x1f").ok());
  EXPECT_FALSE(parse_sriov_count("4 4").ok());
}

TEST(VnpuParse, NodeNameCarriesNpuAndSlot) {
  auto v = parse_vnpu_node("vdavinci117");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, (VnpuId{117, 1, 1}));
  EXPECT_EQ(*parse_vnpu_node("vdavinci100"), (VnpuId{100, 0, 0}));
  EXPECT_EQ(*parse_vnpu_node("vdavinci131"), (VnpuId{131, 1, 15}));
  EXPECT_FALSE(parse_vnpu_node("vdavinci99").ok());  // below 100: no NPU's
  EXPECT_FALSE(parse_vnpu_node("vdavinci").ok());
  EXPECT_FALSE(parse_vnpu_node("davinci117").ok());
  EXPECT_FALSE(parse_vnpu_node("vdavinci-1").ok());
  EXPECT_FALSE(parse_vnpu_node("vdavinci1x").ok());
  EXPECT_FALSE(parse_vnpu_node("vdavinci9999999").ok());  // more digits than any id has
  EXPECT_FALSE(parse_vnpu_node("vdavinci16484").ok());    // NPU 1024: past the last id
  EXPECT_FALSE(parse_vnpu_node(std::string("vdavinci1\0"
                                           "17",
                                           12))
                   .ok());
}

TEST(TileParse, NumbersFromZeroWithoutGaps) {
  using V = std::vector<int>;
  EXPECT_EQ(*parse_tile_names({"gt0", "gt1", "uevent"}, "gt"), (V{0, 1}));
  EXPECT_EQ(*parse_tile_names({"tile1", "tile0"}, "tile"), (V{0, 1}));
  EXPECT_EQ(*parse_tile_names({"gt0"}, "gt"), V{});  // one tile: the card is the device
  EXPECT_EQ(*parse_tile_names({}, "gt"), V{});
  EXPECT_EQ(*parse_tile_names({"gt", "gtx", "gt-1", "tile0", "tile1"}, "gt"), V{});
  auto gap = parse_tile_names({"tile0", "tile2"}, "tile");
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().message, "lists tiles tile0, tile2, not numbered from 0 without gaps");
  auto three = parse_tile_names({"gt0", "gt1", "gt3"}, "gt");
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.error().message,
            "lists 3 tiles (gt0, gt1, gt3), more than any Intel GPU has (2)");
  EXPECT_FALSE(parse_tile_names({"gt1", "gt2"}, "gt").ok());
  EXPECT_FALSE(parse_tile_names({"gt0", "gt18446744073709551615"}, "gt").ok());
}

}  // namespace
}  // namespace anygpu
