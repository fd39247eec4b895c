// `anygpu topo`'s pure parts: a KFD link's properties, a PCI function's sysfs path and the PCIe
// distance classes between two places in the PCI tree.
#include <gtest/gtest.h>

#include "topo/kfd_link.h"
#include "topo/pci_path.h"
#include "topo/topology.h"

namespace anygpu {
namespace {

TEST(KfdLink, ReadsTheCapturedXgmiLink) {
  // nodes/2/io_links/1/properties of the MI210 capture (ROCm/k8s-device-plugin testdata).
  auto l = parse_kfd_link(
      "type 11\nversion_major 0\nversion_minor 0\nnode_from 2\nnode_to 3\nweight 15\n"
      "min_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth 50000\n"
      "recommended_transfer_size 0\nrecommended_sdma_engine_id_mask 0\nflags 1\n");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->type, kKfdLinkXgmi);
  EXPECT_EQ(l->node_from, 2u);
  EXPECT_EQ(l->node_to, 3u);
  EXPECT_EQ(l->weight, 15u);
}

TEST(KfdLink, RefusesMissingKeysAndWeightsOutOfRange) {
  auto no_to = parse_kfd_link("type 11\nnode_from 2\nweight 15\n");
  ASSERT_FALSE(no_to.ok());
  EXPECT_EQ(no_to.error().message, "no 'node_to' line");
  auto zero = parse_kfd_link("type 11\nnode_from 2\nnode_to 3\nweight 0\n");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, "weight 0 out of range 1..1000");
  auto huge = parse_kfd_link("type 11\nnode_from 2\nnode_to 3\nweight 4294967295\n");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("weight 4294967295 out of range"), std::string::npos);
  EXPECT_TRUE(parse_kfd_link("type 11\nnode_from 2\nnode_to 3\nweight 1000\n").ok());
  EXPECT_FALSE(parse_kfd_link("type eleven\nnode_from 2\nnode_to 3\nweight 15\n").ok());
  EXPECT_FALSE(parse_kfd_link("").ok());
  EXPECT_FALSE(parse_kfd_link("\x01\x02").ok());
}

TEST(PciSysfsPath, SplitsRootComplexAndChain) {
  auto p = parse_pci_sysfs_path("/sys/devices/pci0000:20/0000:20:01.1/0000:24:00.0/0000:26:00.0");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->root_complex, "pci0000:20");
  EXPECT_EQ(p->chain, (std::vector<std::string>{"0000:20:01.1", "0000:24:00.0", "0000:26:00.0"}));
  auto vmd = parse_pci_sysfs_path("/sys/devices/pci10000:00/10000:00:02.0/10000:01:00.0");
  ASSERT_TRUE(vmd.ok()) << vmd.error().message;
  EXPECT_EQ(vmd->root_complex, "pci10000:00");
}

TEST(PciSysfsPath, RefusesWhatIsNotAPciFunction) {
  for (const char* bad :
       {"/sys/devices/virtual/net/lo", "/sys/devices/pci0000:00",
        "/sys/devices/pci0000:00/0000:00:01.1/infiniband/mlx5_0",
        "/sys/bus/pci/devices/0000:03:00.0", "/sys/devices/pcixyzw:00/0000:00:01.0",
        "/sys/devices/pci0000:00/0000:00:01.1/", "", "/sys/devices/pci0000:00/0000:00:01.8"}) {
    auto p = parse_pci_sysfs_path(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.error().message.find("not a PCI function's path"), std::string::npos);
  }
}

using Path = std::vector<std::string>;

PcieClass classify(const Path& a, const char* rc_a, std::optional<int> numa_a, const Path& b,
                   const char* rc_b, std::optional<int> numa_b, std::optional<int> nodes = 2) {
  return pcie_class({&a, rc_a, numa_a}, {&b, rc_b, numa_b}, nodes);
}

TEST(PcieClass, NvidiaSmiClassesFromTheTree) {
  Path gpu{"0000:00:01.1", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"};
  Path nic_same_switch{"0000:00:01.1", "0000:01:00.0", "0000:02:01.0", "0000:04:00.0"};
  Path nic_second_switch{"0000:00:01.1", "0000:01:00.0", "0000:02:02.0",
                         "0000:05:00.0", "0000:06:00.0", "0000:07:00.0"};
  Path other_root_port{"0000:00:03.1", "0000:10:00.0"};
  Path other_rc{"0000:20:01.1", "0000:21:00.0"};
  EXPECT_EQ(classify(gpu, "pci0000:00", 0, nic_same_switch, "pci0000:00", 0), PcieClass::pix);
  EXPECT_EQ(classify(gpu, "pci0000:00", 0, nic_second_switch, "pci0000:00", 0), PcieClass::pxb);
  EXPECT_EQ(classify(gpu, "pci0000:00", 0, other_root_port, "pci0000:00", 0), PcieClass::phb);
  EXPECT_EQ(classify(gpu, "pci0000:00", 0, other_rc, "pci0000:20", 0), PcieClass::node);
  EXPECT_EQ(classify(gpu, "pci0000:00", 0, other_rc, "pci0000:20", 1), PcieClass::sys);
  // Two functions of one device (a dual-port NIC) share its bridge.
  Path port1 = nic_same_switch;
  port1.back() = "0000:04:00.1";
  EXPECT_EQ(classify(nic_same_switch, "pci0000:00", 0, port1, "pci0000:00", 0), PcieClass::pix);
}

TEST(PcieClass, UnknownNumaIsSysUnlessTheHostHasOneNode) {
  Path a{"0000:00:01.0", "0000:01:00.0"};
  Path b{"0000:20:01.0", "0000:21:00.0"};
  EXPECT_EQ(classify(a, "pci0000:00", std::nullopt, b, "pci0000:20", std::nullopt, 2),
            PcieClass::sys);
  EXPECT_EQ(classify(a, "pci0000:00", std::nullopt, b, "pci0000:20", std::nullopt, std::nullopt),
            PcieClass::sys);
  EXPECT_EQ(classify(a, "pci0000:00", std::nullopt, b, "pci0000:20", std::nullopt, 1),
            PcieClass::node);
  EXPECT_EQ(classify(a, "pci0000:00", 0, b, "pci0000:20", std::nullopt, 1), PcieClass::sys);
  // Without a path (unresolvable sysfs) only the NUMA nodes are known.
  EXPECT_EQ(pcie_class({nullptr, "pci0000:00", 0}, {&b, "pci0000:00", 0}, 2), PcieClass::node);
}

TEST(PcieClass, Names) {
  EXPECT_EQ(to_string(PcieClass::pix), "PIX");
  EXPECT_EQ(to_string(PcieClass::pxb), "PXB");
  EXPECT_EQ(to_string(PcieClass::phb), "PHB");
  EXPECT_EQ(to_string(PcieClass::node), "NODE");
  EXPECT_EQ(to_string(PcieClass::sys), "SYS");
}

}  // namespace
}  // namespace anygpu
