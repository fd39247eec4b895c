#include "probe/pci_ids.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace anygpu {

TEST(PciIds, FindsDeviceUnderItsVendorOnly) {
  std::string text =
      "# comment\n1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t74a1  Aqua Vanjaram [Instinct "
      "MI300X]\n"
      "\t\t1002 74a1  subsystem line\n10de  NVIDIA Corporation\n# a comment inside\n"
      "\t2330  GH100 [H100 SXM5 80GB]\n\t74a1  not AMD's\n1234  Other\n\t2330  other vendor\n";
  EXPECT_EQ(find_pci_device_name(text, 0x10de, 0x2330), "GH100 [H100 SXM5 80GB]");
  EXPECT_EQ(find_pci_device_name(text, 0x1002, 0x74a1), "Aqua Vanjaram [Instinct MI300X]");
  EXPECT_EQ(find_pci_device_name(text, 0x1234, 0x2330), "other vendor");
  EXPECT_FALSE(find_pci_device_name(text, 0x1002, 0x2330));  // stops at the vendor's block end
  EXPECT_FALSE(find_pci_device_name(text, 0xabcd, 0x0001));
  EXPECT_FALSE(find_pci_device_name("", 0x10de, 0x2330));
  EXPECT_FALSE(find_pci_device_name("10de  NVIDIA\n\t2330  ", 0x10de, 0x2330));  // truncated
}

TEST(PciIds, RealDatabaseWhenInstalled) {
  std::ifstream f("/usr/share/misc/pci.ids");
  if (!f) GTEST_SKIP() << "Debian package pci.ids is not installed";
  std::stringstream s;
  s << f.rdbuf();
  auto name = find_pci_device_name(s.str(), 0x10de, 0x2330);
  ASSERT_TRUE(name);
  EXPECT_NE(name->find("H100"), std::string::npos) << *name;
}

}  // namespace anygpu
