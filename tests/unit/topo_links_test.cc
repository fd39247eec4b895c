// KFD links between devices: mapping by domain/location_id, and every bad link left out with a
// warning naming its file; the whole reading on the MI210 fixture and damaged copies of it.
#include <gtest/gtest.h>

#include <filesystem>

#include "host/host_root.h"
#include "kfd_root_fixture.h"
#include "test_support.h"
#include "topo/kfd_topology.h"
#include "topo/topology_output.h"

namespace anygpu {
namespace {

// Four devices in PCI order; KFD numbers them 3, 2, 5, 4 (not PCI order).
struct Fixture {
  std::vector<Device> devices;
  Topology t;
  Fixture() {
    for (uint8_t bus : {0x03, 0x26, 0x43, 0x63}) {
      Device d;
      d.vendor = "amd";
      d.index = static_cast<int>(devices.size());
      d.pci.address = {0, bus, 0, 0};
      devices.push_back(d);
    }
    for (const auto& d : devices) t.devices.push_back(TopoDevice{&d, {}, {}, {}, {}});
  }
};

KfdNodeFacts gpu(uint64_t id, uint8_t bus) {
  return {id, PciAddress{0, bus, 0, 0}, {}};
}
void link(KfdNodeFacts& n, uint64_t to, uint64_t weight = 15, uint64_t type = kKfdLinkXgmi) {
  n.links.emplace_back("nodes/" + std::to_string(n.id) + "/io_links/" + std::to_string(to),
                       KfdLink{type, n.id, to, weight});
}

std::vector<KfdNodeFacts> full_mesh() {
  std::vector<KfdNodeFacts> nodes{
      {0, std::nullopt, {}}, gpu(3, 0x03), gpu(2, 0x26), gpu(5, 0x43), gpu(4, 0x63)};
  for (auto& n : nodes) {
    if (!n.gpu_address) continue;
    link(n, 0, 20, kKfdLinkPcie);
    for (uint64_t peer : {2, 3, 4, 5})
      if (peer != n.id) link(n, peer);
  }
  return nodes;
}

TEST(KfdLinks, FullMeshMappedByLocationNotByNodeNumber) {
  Fixture f;
  add_kfd_links(full_mesh(), f.t);
  EXPECT_TRUE(f.t.warnings.empty());
  ASSERT_EQ(f.t.links.size(), 6u);
  for (const auto& l : f.t.links) {
    EXPECT_LT(l.a, l.b);
    EXPECT_EQ(l.kind, "xgmi");
    EXPECT_EQ(l.weight, 15u);
  }
  EXPECT_EQ(f.t.devices[0].kfd_node, 3);
  EXPECT_EQ(f.t.devices[1].kfd_node, 2);
  EXPECT_EQ(f.t.devices[3].kfd_node, 4);
  EXPECT_EQ(device_cell(f.t, 0, 3), "XGMI");
}

TEST(KfdLinks, LinkToANodeThatDoesNotExistIsLeftOut) {
  Fixture f;
  auto nodes = full_mesh();
  link(nodes[1], 9);
  add_kfd_links(nodes, f.t);
  ASSERT_EQ(f.t.warnings.size(), 1u);
  EXPECT_EQ(f.t.warnings[0], "nodes/3/io_links/9: link to node 9, which does not exist; left out");
  EXPECT_EQ(f.t.links.size(), 6u);
}

TEST(KfdLinks, AsymmetricLinkIsLeftOut) {
  Fixture f;
  auto nodes = full_mesh();
  // Node 4 (0000:63) forgets its link back to node 3 (0000:03).
  auto& back = nodes[4].links;
  back.erase(
      std::remove_if(back.begin(), back.end(), [](const auto& l) { return l.second.node_to == 3; }),
      back.end());
  add_kfd_links(nodes, f.t);
  ASSERT_EQ(f.t.warnings.size(), 1u);
  EXPECT_EQ(f.t.warnings[0], "nodes/3/io_links/4: xGMI link 3 -> 4 has no link back; left out");
  EXPECT_EQ(f.t.links.size(), 5u);
  EXPECT_EQ(f.t.link(0, 3), nullptr);
}

TEST(KfdLinks, DifferentWeightBackIsLeftOut) {
  Fixture f;
  auto nodes = full_mesh();
  for (auto& [file, l] : nodes[2].links)
    if (l.node_to == 5) l.weight = 30;
  add_kfd_links(nodes, f.t);
  ASSERT_EQ(f.t.warnings.size(), 1u);
  EXPECT_EQ(f.t.warnings[0],
            "nodes/2/io_links/5: xGMI link 2 -> 5 has weight 30 but 15 back (nodes/5/io_links/2); "
            "left out");
  EXPECT_EQ(f.t.links.size(), 5u);
}

TEST(KfdLinks, LinkFiledUnderAnotherNodeIsLeftOut) {
  Fixture f;
  auto nodes = full_mesh();
  nodes[1].links.emplace_back("nodes/3/io_links/7", KfdLink{kKfdLinkXgmi, 2, 5, 15});
  add_kfd_links(nodes, f.t);
  ASSERT_EQ(f.t.warnings.size(), 1u);
  EXPECT_EQ(f.t.warnings[0],
            "nodes/3/io_links/7: link from node 2 in the directory of node 3; left out");
}

TEST(KfdLinks, NodesOfNoDeviceAddNoLinks) {
  Fixture f;
  f.t.devices.resize(2);  // 0000:43 and 0000:63 are not in the inventory
  add_kfd_links(full_mesh(), f.t);
  EXPECT_TRUE(f.t.warnings.empty());
  ASSERT_EQ(f.t.links.size(), 1u);
  EXPECT_EQ(f.t.links[0].a, 0u);
  EXPECT_EQ(f.t.links[0].b, 1u);
}

TEST(KfdLinks, TwoNodesOfOneDeviceMakeNoSelfLink) {
  Fixture f;
  auto nodes = full_mesh();
  nodes[2].gpu_address = PciAddress{0, 0x03, 0, 0};  // node 2 claims node 3's function
  add_kfd_links(nodes, f.t);
  for (const auto& l : f.t.links) EXPECT_NE(l.a, l.b);
  EXPECT_EQ(f.t.links.size(), 3u);  // among 0000:03, :43 and :63
}

// The whole reading on the fixture host built from the MI210 capture.
struct Mi210 : test::KfdRoot {
  void SetUp() override { copy("mi210-xgmi-8x"); }
};

TEST_F(Mi210, TwoHivesAndOneNicPerSwitch) {
  auto t = read();
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.devices.size(), 8u);
  EXPECT_EQ(t.links.size(), 12u);  // two hives of four: 2 × 6 pairs
  for (const auto& l : t.links) EXPECT_EQ(l.a < 4, l.b < 4);
  // KFD node 4 is the GPU at 0000:03:00.0 (location_id 768).
  EXPECT_EQ(t.devices[0].kfd_node, 4);
  ASSERT_EQ(t.nics.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    ASSERT_EQ(t.devices[i].nearest_nics.size(), 1u);
    EXPECT_EQ(t.nics[t.devices[i].nearest_nics[0]].name, "mlx5_" + std::to_string(i));
  }
  EXPECT_EQ(t.nics[0].netdev, "ibp4s0");
  EXPECT_EQ(t.nics[0].numa_node, 0);
  EXPECT_EQ(device_cell(t, 0, 4), "SYS");
}

TEST_F(Mi210, DamagedLinksAreLeftOutNamingTheirFiles) {
  // Node 2 -> 3: weight out of range; node 4 -> 9: to a node that does not exist;
  // node 6 loses its link to node 7 (asymmetric).
  test::write_file(kfd("2/io_links/1/properties"), "type 11\nnode_from 2\nnode_to 3\nweight 0\n");
  test::write_file(kfd("4/io_links/3/properties"), "type 11\nnode_from 4\nnode_to 19\nweight 15\n");
  std::filesystem::remove_all(kfd("6/io_links/1"));
  auto t = read();
  std::vector<std::string> expected{
      "/sys/class/kfd/kfd/topology/nodes/2/io_links/1/properties: weight 0 out of range "
      "1..1000; left out",
      "/sys/class/kfd/kfd/topology/nodes/3/io_links/1/properties: xGMI link 3 -> 2 has no link "
      "back; left out",
      "/sys/class/kfd/kfd/topology/nodes/4/io_links/3/properties: link to node 19, which does "
      "not exist; left out",
      "/sys/class/kfd/kfd/topology/nodes/5/io_links/3/properties: xGMI link 5 -> 4 has no link "
      "back; left out",
      "/sys/class/kfd/kfd/topology/nodes/7/io_links/1/properties: xGMI link 7 -> 6 has no link "
      "back; left out"};
  std::sort(t.warnings.begin(), t.warnings.end());
  EXPECT_EQ(t.warnings, expected);
  EXPECT_EQ(t.links.size(), 9u);
}

TEST_F(Mi210, MalformedNodePropertiesLoseOnlyThatNodesLinks) {
  test::write_file(kfd("3/properties"), "simd_count lots\n");
  auto t = read();
  // Node 3 (0000:43:00.0) still exists: its peers' links to it lack only the link back.
  ASSERT_FALSE(t.warnings.empty());
  EXPECT_NE(t.warnings[0].find("nodes/3/properties"), std::string::npos) << t.warnings[0];
  for (const auto& w : t.warnings) EXPECT_EQ(w.find("does not exist"), std::string::npos) << w;
  EXPECT_EQ(t.links.size(), 9u);
}

TEST_F(Mi210, NoKfdTreeMeansPcieClassesOnly) {
  std::filesystem::remove_all(root + "/sys/class/kfd");
  auto t = read();
  EXPECT_TRUE(t.links.empty());
  EXPECT_EQ(device_cell(t, 0, 1), "NODE");
}

}  // namespace
}  // namespace anygpu
