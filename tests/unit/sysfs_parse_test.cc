#include "probe/sysfs_parse.h"

#include <gtest/gtest.h>

#include "model/inventory.h"

namespace anygpu {

TEST(SysfsParse, LinkSpeedAndWidth) {
  EXPECT_EQ(**parse_link_speed("32.0 GT/s PCIe\n"), 32.0);
  EXPECT_EQ(**parse_link_speed("2.5 GT/s"), 2.5);
  EXPECT_FALSE(*parse_link_speed("Unknown"));  // the kernel's "don't know": absent, no error
  EXPECT_FALSE(parse_link_speed("fast GT/s"));
  EXPECT_FALSE(parse_link_speed("1e9 GT/s"));
  EXPECT_FALSE(parse_link_speed("0xzz"));
  EXPECT_EQ(**parse_link_width("16"), 16);
  EXPECT_FALSE(*parse_link_width("255"));  // unknown
  EXPECT_FALSE(*parse_link_width("0"));
  EXPECT_FALSE(parse_link_width("x16"));
  EXPECT_FALSE(parse_link_width("-7"));
  EXPECT_FALSE(parse_link_width("99999999999999999999999"));
}

TEST(SysfsParse, NumaNode) {
  EXPECT_EQ(*parse_numa_node("1"), std::optional<int>(1));
  EXPECT_EQ(*parse_numa_node("-1"), std::optional<int>());
  EXPECT_FALSE(parse_numa_node(""));
  EXPECT_FALSE(parse_numa_node("-7"));
  EXPECT_FALSE(parse_numa_node("99999999999999999999999"));
}

TEST(SysfsParse, PciClassAndIds) {
  EXPECT_EQ(*parse_pci_class("0x030200\n"), 0x030200u);
  EXPECT_FALSE(parse_pci_class("0x0302"));
  EXPECT_FALSE(parse_pci_class("030200"));
  EXPECT_EQ(*parse_pci_id("0x10de"), 0x10de);
  EXPECT_FALSE(parse_pci_id("0x10de0"));
  EXPECT_FALSE(parse_pci_id("0xzzzz"));
}

TEST(SysfsParse, NvidiaInformation) {
  const char* text =
      "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 150\n"
      "GPU UUID: \t GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08\nVideo BIOS: \t 96.00.99.00.01\n"
      "Bus Type: \t PCIe\nDevice Minor: \t 3\nBus Location: \t 0000:18:00.0\n";
  auto info = parse_nvidia_information(text);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info->uuid, "GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08");
  EXPECT_EQ(info->minor, 3);
  EXPECT_EQ(info->bus_location, "0000:18:00.0");
}

TEST(SysfsParse, NvidiaInformationMalformed) {
  EXPECT_FALSE(parse_nvidia_information(""));
  EXPECT_FALSE(parse_nvidia_information("garbage without colons"));
  auto bad_minor = parse_nvidia_information("Model: X\nDevice Minor: 99999\n");
  ASSERT_FALSE(bad_minor);
  EXPECT_NE(bad_minor.error().message.find("Device Minor"), std::string::npos);
  // A read cut mid-line keeps only complete lines: no half UUID.
  auto truncated = parse_nvidia_information("Model: NVIDIA H100\nGPU UUID: GPU-445d26");
  ASSERT_TRUE(truncated);
  EXPECT_EQ(truncated->model, "NVIDIA H100");
  EXPECT_FALSE(truncated->uuid);
  EXPECT_FALSE(parse_nvidia_information("Model: NVIDIA H1"));
}

TEST(SysfsParse, KfdPropertiesAndGfxDecode) {
  auto p = parse_kfd_properties(
      "cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\n"
      "location_id 1280\ndomain 0\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("gfx_target_version"), 90402u);
  EXPECT_EQ(p->at("location_id"), 1280u);
  EXPECT_EQ(*decode_gfx_target_version(90402), "gfx942");
  EXPECT_EQ(*decode_gfx_target_version(90010), "gfx90a");
  EXPECT_EQ(*decode_gfx_target_version(110000), "gfx1100");
  EXPECT_EQ(*decode_gfx_target_version(120001), "gfx1201");
  EXPECT_EQ(*decode_gfx_target_version(90208), "gfx928");
  EXPECT_FALSE(decode_gfx_target_version(0));
  EXPECT_FALSE(decode_gfx_target_version(9999999));
  EXPECT_FALSE(parse_kfd_properties("gfx_target_version abc\n"));
  EXPECT_FALSE(parse_kfd_properties("novalue\n"));
  EXPECT_FALSE(parse_kfd_properties(""));
}

TEST(SysfsParse, OsRelease) {
  EXPECT_EQ(*parse_os_release("NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\n"),
            "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(*parse_os_release("NAME=openEuler\nVERSION=\"22.03 LTS\"\n"), "openEuler 22.03 LTS");
  EXPECT_FALSE(parse_os_release("ID=debian\n"));
}

TEST(SysfsParse, LibraryFileVersion) {
  EXPECT_EQ(version_from_library_file("libze_loader.so.1.17.6", "libze_loader.so.1"), "1.17.6");
  EXPECT_FALSE(version_from_library_file("libze_loader.so", "libze_loader.so.1"));
  EXPECT_FALSE(version_from_library_file("libother.so.1.2", "libze_loader.so.1"));
  EXPECT_FALSE(version_from_library_file("libze_loader.so.1.x", "libze_loader.so.1"));
}

TEST(PciAddressTest, ParseAndFormat) {
  auto a = PciAddress::parse("0000:18:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bus, 0x18);
  EXPECT_EQ(a->str(), "0000:18:00.0");
  auto vmd = PciAddress::parse("10000:e1:00.0");
  ASSERT_TRUE(vmd);
  EXPECT_EQ(vmd->domain, 0x10000u);
  EXPECT_LT(*a, *vmd);
  for (const char* bad :
       {"", "0000:18:00", "0000:18:20.0", "0000:18:00.8", "zzzz:18:00.0", "0000:-1:00.0",
        "0000:0x:00.0", "0000:18:00.0.1", "0000: 1:00.0", "0000:01: 0.0", "  00000:01:00.0"})
    EXPECT_FALSE(PciAddress::parse(bad)) << bad;
}

}  // namespace anygpu
