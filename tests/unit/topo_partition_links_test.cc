// Partitions as rows of the link matrix: KFD lists each AMD CPX partition as a node with xGMI
// io_links to every other (weight 13 inside one device, 41 across devices, facts F-54); read
// from the fixtures built from the real MI300X and MI308X CPX captures, damaged copies of them,
// and what select and slurm gres make of the links.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cluster/gres.h"
#include "host/host_root.h"
#include "kfd_root_fixture.h"
#include "select/select.h"
#include "test_support.h"
#include "topo/closeness.h"
#include "topo/kfd_topology.h"
#include "topo/topology_output.h"
#include "util/strings.h"

namespace anygpu {
namespace {

struct Cpx : test::KfdRoot {};

size_t count_weight(const Topology& t, uint64_t w) {
  return static_cast<size_t>(std::count_if(t.partition_links.begin(), t.partition_links.end(),
                                           [&](const DeviceLink& l) { return l.weight == w; }));
}

TEST_F(Cpx, Mi300xEveryPartitionIsARowLinkedToEveryOther) {
  copy("mi300x-8x-cpx");
  auto t = read();
  EXPECT_TRUE(t.warnings.empty()) << join(t.warnings, "\n");
  // 63 partitions: the GPU at 0xe5 has 7 (the capture's irregularity).
  ASSERT_EQ(t.partitions.size(), 63u);
  EXPECT_EQ(t.partitions.back().partition->id, "0000:e5:00.0/6");
  EXPECT_EQ(t.partitions.back().kfd_node, 64);
  EXPECT_EQ(t.partitions[0].kfd_node, 2);
  EXPECT_TRUE(t.links.empty());  // no whole device is a node of its own
  ASSERT_EQ(t.partition_links.size(), 63u * 62 / 2);
  // Inside a device: 7 devices of 8 (28 pairs) and one of 7 (21): 217 of weight 13.
  EXPECT_EQ(count_weight(t, 13), 7u * 28 + 21);
  EXPECT_EQ(count_weight(t, 41), 63u * 62 / 2 - 217);
  for (const auto& l : t.partition_links) {
    bool same = t.partitions[l.a].device == t.partitions[l.b].device;
    EXPECT_EQ(l.weight, same ? 13u : 41u);
    EXPECT_EQ(l.kind, "xgmi");
  }
  auto text = topology_to_text(t);
  EXPECT_NE(text.find("amd7:6  XGMI41"), std::string::npos) << text.substr(0, 400);
  EXPECT_EQ(text.find("amd7:7"), std::string::npos);
  EXPECT_NE(text.find("amd0:1: 0000:05:00.0/1 AMD Instinct MI300X, KFD node 3"), std::string::npos);
  auto j = topology_to_json(t);
  ASSERT_EQ(j["partitions"].size(), 63u);
  EXPECT_EQ(j["partitions"][9]["label"], "amd1:1");
  EXPECT_EQ(j["links"][0]["a"], "0000:05:00.0/0");
  EXPECT_EQ(j["links"][0]["weight"], 13);
}

TEST_F(Cpx, Mi308xFourPartitionsPerDeviceOnTwoDomains) {
  copy("mi308x-8x-cpx");
  auto t = read();
  EXPECT_TRUE(t.warnings.empty()) << join(t.warnings, "\n");
  ASSERT_EQ(t.partitions.size(), 32u);
  EXPECT_EQ(t.partition_links.size(), 32u * 31 / 2);
  EXPECT_EQ(count_weight(t, 13), 8u * 6);
  // The p2p_links to the other CPU are PCIe (type 2): no link of their own.
  EXPECT_EQ(count_weight(t, 13) + count_weight(t, 41), t.partition_links.size());
}

TEST_F(Cpx, BadPartitionLinksAreLeftOutNamingTheirFiles) {
  copy("mi300x-8x-cpx");
  // Node 2's io_links/2 (to node 3): to a node that does not exist; node 10's io_links/3 (to
  // node 4): another weight than the link back; node 11's io_links/5: weight out of range.
  auto file_to = [&](int from, int to) {
    for (const auto& e :
         std::filesystem::directory_iterator(kfd(std::to_string(from) + "/io_links"))) {
      std::ifstream in(e.path() / "properties");
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (text.find(cat({"node_to ", std::to_string(to), "\n"})) != std::string::npos)
        return (e.path() / "properties").string();
    }
    return std::string();
  };
  auto a = file_to(2, 3), b = file_to(10, 4), c = file_to(11, 12);
  ASSERT_FALSE(a.empty() || b.empty() || c.empty());
  test::write_file(a, "type 11\nnode_from 2\nnode_to 99\nweight 13\n");
  test::write_file(b, "type 11\nnode_from 10\nnode_to 4\nweight 13\n");
  test::write_file(c, "type 11\nnode_from 11\nnode_to 12\nweight 4000\n");
  auto t = read();
  auto rel = [&](const std::string& f) { return f.substr(root.size()); };
  auto has = [&](const std::string& w) {
    return std::find(t.warnings.begin(), t.warnings.end(), w) != t.warnings.end();
  };
  EXPECT_TRUE(has(rel(a) + ": link to node 99, which does not exist; left out"))
      << join(t.warnings, "\n");
  EXPECT_TRUE(has(rel(c) + ": weight 4000 out of range 1..1000; left out"));
  bool asymmetric = false;
  for (const auto& w : t.warnings)
    asymmetric =
        asymmetric || (w.find("xGMI link 4 -> 10 has weight 41 but 13 back") != std::string::npos &&
                       w.find(rel(b)) != std::string::npos);
  EXPECT_TRUE(asymmetric) << join(t.warnings, "\n");
  // Each damaged pair is left out; the rest stays.
  EXPECT_EQ(t.partition_links.size(), 63u * 62 / 2 - 3);
  EXPECT_FALSE(t.partition_link(0, 1));   // nodes 2 and 3
  EXPECT_FALSE(t.partition_link(2, 8));   // nodes 4 and 10
  EXPECT_FALSE(t.partition_link(9, 10));  // nodes 11 and 12
  EXPECT_TRUE(t.partition_link(0, 2));
}

TEST_F(Cpx, ClosenessKeysPartitionLinksByPartitionId) {
  copy("mi300x-8x-cpx");
  auto t = read();
  auto c = closeness_of(t);
  const auto* inside = c.link("0000:05:00.0/0", "0000:05:00.0/7");
  const auto* across = c.link("0000:27:00.0/3", "0000:05:00.0/1");
  ASSERT_TRUE(inside && across);
  EXPECT_EQ(inside->count, 1);
  EXPECT_EQ(inside->weight, 13u);
  EXPECT_EQ(across->weight, 41u);
  EXPECT_FALSE(c.link("0000:05:00.0", "0000:27:00.0"));  // no whole-device link is made up
  // k8s link domains stay between whole devices: none here.
  EXPECT_TRUE(link_domains(t).empty());
}

Selection pick(const Inventory& inv, int n, const SelectInputs& in) {
  AcceleratorConfig cfg;
  cfg.count = n;
  auto s = select_devices(inv, cfg, in);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

TEST_F(Cpx, SelectFillsTheFullestDevicesFirst) {
  copy("mi300x-8x-cpx");
  auto t = read();
  SelectInputs in;
  in.closeness = closeness_of(t);
  // Twelve of 63: one device of 8 and 4 of the next, said with KFD's weights.
  auto s = pick(inventory, 12, in);
  ASSERT_EQ(s.devices.size(), 12u);
  EXPECT_EQ(s.partition_of(7)->id, "0000:05:00.0/7");
  EXPECT_EQ(s.partition_of(11)->id, "0000:27:00.0/3");
  auto why = join(s.reasons, "\n");
  EXPECT_NE(why.find("chose 12 of 63 eligible amd units in one xgmi link domain"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("they span 2 devices (amd 0: 8, amd 1: 4), the fewest that hold them: KFD "
                     "weighs the link between partitions of one device 13, of two devices 41"),
            std::string::npos)
      << why;
  // Device 0 with 6 of its partitions held and device 1 with 1: in bus order ten would take
  // device 0's two, device 1's seven and one of device 2 (three devices); fullest first, they
  // take device 2's eight and two of device 3.
  for (int p = 0; p < 6; ++p) in.unavailable[cat({"0000:05:00.0/", std::to_string(p)})] = "held";
  in.unavailable["0000:27:00.0/0"] = "held";
  auto f = pick(inventory, 10, in);
  ASSERT_EQ(f.devices.size(), 10u);
  std::vector<std::string> ids;
  for (size_t i = 0; i < 10; ++i) ids.push_back(f.partition_of(i)->id);
  EXPECT_EQ(ids.front(), "0000:47:00.0/0");
  EXPECT_EQ(ids[7], "0000:47:00.0/7");
  EXPECT_EQ(ids.back(), "0000:65:00.0/1");
  EXPECT_NE(join(f.reasons, "\n").find("they span 2 devices (amd 2: 8, amd 3: 2)"),
            std::string::npos)
      << join(f.reasons, "\n");
}

TEST_F(Cpx, GresPartitionLinesLinkTwoInsideADeviceOneAcross) {
  copy("mi300x-8x-cpx");
  auto t = read();
  auto lines = gres_lines(inventory, nullptr);
  ASSERT_EQ(lines.size(), 63u);
  auto note = add_gres_links(lines, t);
  EXPECT_NE(note.find("2 between two of one device, 1 between two devices"), std::string::npos)
      << note;
  ASSERT_EQ(lines[0].links.size(), 63u);
  EXPECT_EQ(lines[0].links[0], -1);
  EXPECT_EQ(lines[0].links[7], 2);
  EXPECT_EQ(lines[0].links[8], 1);
  EXPECT_EQ(lines[62].links[56], 2);  // 0xe5's partitions 0 and 6
  EXPECT_EQ(lines[62].links[55], 1);
}

TEST(KfdPartitionLinks, NodesMapToPartitionsByTheirFunctionBits) {
  // One device in CPX with partitions 0 and 2 listed; KFD has nodes for 0, 1 and 2 (1 is no
  // partition discovery knows: it maps to nothing).
  Device d;
  d.vendor = "amd";
  d.pci.address = {0, 0x05, 0, 0};
  d.partitioning = Partitioning{"CPX", std::nullopt};
  for (int i : {0, 2}) {
    Partition p;
    p.index = i;
    p.id = cat({"0000:05:00.0/", std::to_string(i)});
    d.partitions.push_back(p);
  }
  Topology t;
  t.devices.push_back(TopoDevice{&d, {}, {}, {}, {}});
  std::vector<KfdNodeFacts> nodes;
  for (uint8_t f : {0, 1, 2}) nodes.push_back({uint64_t{7} + f, PciAddress{0, 0x05, 0, f}, {}});
  auto link = [](KfdNodeFacts& n, uint64_t to) {
    n.links.emplace_back(cat({"nodes/", std::to_string(n.id), "/io_links/", std::to_string(to)}),
                         KfdLink{kKfdLinkXgmi, n.id, to, 13});
  };
  for (auto& n : nodes)
    for (uint64_t to : {7, 8, 9})
      if (to != n.id) link(n, to);
  add_kfd_links(nodes, t);
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.partitions.size(), 2u);
  EXPECT_EQ(t.partitions[1].partition->index, 2);
  EXPECT_EQ(t.partitions[1].kfd_node, 9);
  ASSERT_EQ(t.partition_links.size(), 1u);
  EXPECT_EQ(t.partition_links[0].weight, 13u);
  EXPECT_TRUE(t.links.empty());
  EXPECT_FALSE(t.devices[0].kfd_node);
}

}  // namespace
}  // namespace anygpu
