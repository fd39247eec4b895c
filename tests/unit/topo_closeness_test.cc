// What select, gres and labels take from a Topology: direct link counts (one xGMI hop only),
// switches from PCI paths, and link domains, on synthetic topologies and the MI210 fixture.
#include <gtest/gtest.h>

#include "host/host_root.h"
#include "test_support.h"
#include "topo/closeness.h"

namespace anygpu {
namespace {

DeviceLink xgmi(size_t a, size_t b, uint64_t weight) {
  return DeviceLink{a, b, "xgmi", std::nullopt, weight};
}

struct Synthetic {
  std::vector<Device> devices;
  Topology t;
  explicit Synthetic(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      Device d;
      d.index = static_cast<int>(i);
      d.pci.address = {0, static_cast<uint8_t>(0x10 * (i + 1)), 0, 0};
      devices.push_back(d);
    }
    for (const auto& d : devices) t.devices.push_back(TopoDevice{&d, {}, {}, {}, {}});
  }
};

}  // namespace

TEST(TopoCloseness, OnlyOneXgmiHopIsADirectLink) {
  EXPECT_EQ(direct_link_count(xgmi(0, 1, 15)), 1);
  EXPECT_EQ(direct_link_count(xgmi(0, 1, 41)), 1);  // partitions of two GPUs
  EXPECT_EQ(direct_link_count(xgmi(0, 1, 30)), 0);  // two hops
  EXPECT_EQ(direct_link_count(xgmi(0, 1, 20)), 0);
  EXPECT_EQ(direct_link_count(DeviceLink{0, 1, "xgmi", std::nullopt, std::nullopt}), 0);
  EXPECT_EQ(direct_link_count(DeviceLink{0, 1, "nvlink", 12, std::nullopt}), 12);
}

TEST(TopoCloseness, DomainsAreFullMeshesGreedyInBusOrder) {
  Synthetic s(6);
  // 0-1-2 all linked, 3-4 linked, 2-3 linked (not enough to join), 5 alone; 4-5 two hops.
  for (auto [a, b] : {std::pair<size_t, size_t>{0, 1}, {0, 2}, {1, 2}, {3, 4}, {2, 3}})
    s.t.links.push_back(xgmi(a, b, 15));
  s.t.links.push_back(xgmi(4, 5, 30));
  auto d = link_domains(s.t);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].devices, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(d[0].kind, "xgmi");
  EXPECT_EQ(d[1].devices, (std::vector<size_t>{3, 4}));
  auto c = closeness_of(s.t);
  EXPECT_EQ(c.links.size(), 5u);  // the two-hop route is no direct link
  ASSERT_NE(c.link("0000:20:00.0", "0000:10:00.0"), nullptr);
  EXPECT_EQ(c.link("0000:50:00.0", "0000:60:00.0"), nullptr);
}

TEST(TopoCloseness, SwitchIsTheFirstBridgeBelowTheRootComplex) {
  Synthetic s(3);
  s.t.devices[0].root_complex = "pci0000:00";
  s.t.devices[0].pci_path =
      std::vector<std::string>{"0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:10:00.0"};
  s.t.devices[1].root_complex = "pci0000:00";
  s.t.devices[1].pci_path = std::vector<std::string>{"0000:00:02.0"};  // on the root bus
  s.t.devices[2].root_complex = "pci0000:00";                          // PCI place unknown
  auto c = closeness_of(s.t);
  ASSERT_EQ(c.pcie_switch.size(), 1u);
  EXPECT_EQ(c.pcie_switch.at("0000:10:00.0"), "pci0000:00/0000:00:01.0");
}

TEST(TopoCloseness, Mi210HasTwoHivesOfFour) {
  auto root = test::fixture_host("mi210-xgmi-8x");
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  HostRoot host(o);
  auto inv = test::probe_root(root);
  auto t = read_topology(host, inv);
  auto d = link_domains(t);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].devices, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(d[1].devices, (std::vector<size_t>{4, 5, 6, 7}));
  auto c = closeness_of(t);
  EXPECT_EQ(c.links.size(), 12u);
  // Each GPU sits behind its own switch (with its NIC): eight switches, none shared.
  EXPECT_EQ(c.pcie_switch.size(), 8u);
  std::set<std::string> distinct;
  for (const auto& [bus, sw] : c.pcie_switch) distinct.insert(sw);
  EXPECT_EQ(distinct.size(), 8u);
}

}  // namespace anygpu
