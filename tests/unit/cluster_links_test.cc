// Device links in gres.conf (Links=) and in the node labels (link domains), from the MI210
// fixture (two xGMI hives of four), hosts without links, a partitioned node, and a damaged copy
// of the MI210 host whose bad links topo leaves out: select, gres and labels still answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "app/on_host.h"
#include "cluster/gres.h"
#include "cluster/k8s.h"
#include "host/host_root.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

struct Host {
  std::string root;
  Inventory inventory;
  Topology topology;
  explicit Host(const std::string& r) : root(r), inventory(test::probe_root(r)) {
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    HostRoot host(o);
    topology = read_topology(host, inventory);
  }
};

std::vector<std::vector<int>> links_of(const std::vector<GresLine>& lines) {
  std::vector<std::vector<int>> out;
  for (const auto& l : lines) out.push_back(l.links);
  return out;
}

std::map<std::string, std::string> label_map(const Labels& labels) {
  return {labels.begin(), labels.end()};
}

// The matrix Slurm needs: one row per line, -1 on the diagonal, symmetric.
void expect_slurm_matrix(const std::vector<GresLine>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_EQ(lines[i].links.size(), lines.size()) << i;
    for (size_t j = 0; j < lines.size(); ++j) {
      if (i == j)
        EXPECT_EQ(lines[i].links[j], -1);
      else
        EXPECT_EQ(lines[i].links[j], lines[j].links[i]) << i << "," << j;
    }
  }
}

}  // namespace

TEST(GresLinks, Mi210HivesInLineOrder) {
  Host h(test::fixture_host("mi210-xgmi-8x"));
  auto lines = gres_lines(h.inventory, nullptr);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(add_gres_links(lines, h.topology), "");
  std::vector<int> first{-1, 1, 1, 1, 0, 0, 0, 0}, last{0, 0, 0, 0, 1, 1, 1, -1};
  EXPECT_EQ(lines[0].links, first);
  EXPECT_EQ(lines[7].links, last);
  expect_slurm_matrix(lines);
  // Lines are in bus order, whatever the render minors: line i is device i.
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i].device->index, int(i));
  auto text = gres_conf(lines, "n1", {});
  EXPECT_NE(text.find("/dev/dri/renderD130 Links=-1,1,1,1,0,0,0,0 Flags=amd_gpu_env\n"),
            std::string::npos)
      << text;
}

TEST(GresLinks, HostsWithoutLinksWriteNone) {
  for (const char* name : {"h100-8x", "mi300x-8x", "workstation-mixed", "ascend-910b-8x"}) {
    Host h(test::fixture_host(name));
    auto lines = gres_lines(h.inventory, nullptr);
    EXPECT_EQ(add_gres_links(lines, h.topology), "") << name;
    for (const auto& l : lines) EXPECT_TRUE(l.links.empty()) << name;
    EXPECT_EQ(gres_conf(lines, "n1", {}).find("Links="), std::string::npos) << name;
  }
}

TEST(GresLinks, RoutesOverOtherDevicesAreNoLinks) {
  Host h(test::fixture_host("mi210-xgmi-8x"));
  for (auto& l : h.topology.links) l.weight = 30;  // two xGMI hops each
  auto lines = gres_lines(h.inventory, nullptr);
  EXPECT_EQ(add_gres_links(lines, h.topology), "");
  for (const auto& l : lines) EXPECT_TRUE(l.links.empty());
}

TEST(GresLinks, PartitionLinesGetNoLinksAndANote) {
  Host h(test::fixture_host("mi300x-8x-cpx"));
  ASSERT_GE(h.topology.devices.size(), 2u);
  // Partitions the topology has no rows for (a KFD without their io_links): the links between
  // whole devices say nothing of them.
  h.topology.partitions.clear();
  h.topology.partition_links.clear();
  h.topology.links.push_back(DeviceLink{0, 1, "xgmi", std::nullopt, 15});
  auto lines = gres_lines(h.inventory, nullptr);
  ASSERT_EQ(lines.size(), 63u);
  auto note = add_gres_links(lines, h.topology);
  EXPECT_NE(note.find("Links= left out"), std::string::npos) << note;
  for (const auto& l : lines) EXPECT_TRUE(l.links.empty());
}

TEST(LinkLabels, Mi210TwoHivesOfFour) {
  Host h(test::fixture_host("mi210-xgmi-8x"));
  Labels labels;
  add_link_labels(h.topology, "p", labels);
  EXPECT_EQ(label_map(labels), (std::map<std::string, std::string>{{"p/amd.link-kind", "xgmi"},
                                                                   {"p/amd.link-domain-size", "4"},
                                                                   {"p/amd.link-domains", "2"}}));
}

TEST(LinkLabels, HostsWithoutLinksGetNone) {
  for (const char* name : {"h100-8x", "mi300x-8x", "workstation-mixed"}) {
    Host h(test::fixture_host(name));
    Labels labels;
    add_link_labels(h.topology, "p", labels);
    EXPECT_TRUE(labels.empty()) << name;
  }
}

// Damaged copy: a weight out of range (2 -> 3), a link to a node that does not exist (4 -> 19),
// and node 6 losing its link to 7 (asymmetric): five warnings, three pairs left out.
struct DamagedMi210 : ::testing::Test {
  test::TempDir tmp;
  std::string root = tmp / "root";
  void SetUp() override {
    test::copy_tree(test::fixture_host("mi210-xgmi-8x"), root);
    auto kfd = [&](const std::string& rel) {
      return root + "/sys/class/kfd/kfd/topology/nodes/" + rel;
    };
    test::write_file(kfd("2/io_links/1/properties"), "type 11\nnode_from 2\nnode_to 3\nweight 0\n");
    test::write_file(kfd("4/io_links/3/properties"),
                     "type 11\nnode_from 4\nnode_to 19\nweight 15\n");
    std::filesystem::remove_all(kfd("6/io_links/1"));
  }
};

TEST_F(DamagedMi210, GresLinksLeaveTheBadPairsOut) {
  Host h(root);
  EXPECT_EQ(h.topology.warnings.size(), 5u);
  auto lines = gres_lines(h.inventory, nullptr);
  EXPECT_EQ(add_gres_links(lines, h.topology), "");
  expect_slurm_matrix(lines);
  int ones = 0;
  for (const auto& row : links_of(lines))
    for (int n : row) ones += n == 1;
  EXPECT_EQ(ones, 2 * 9);
}

TEST_F(DamagedMi210, LabelsShowTheLargestDomainLeft) {
  Host h(root);
  Labels labels;
  add_link_labels(h.topology, "p", labels);
  auto m = label_map(labels);
  EXPECT_EQ(m["p/amd.link-kind"], "xgmi");
  // Devices 0-1, 2-3 (first hive) and 6-7 (second) lost their link: the first hive falls
  // into pairs, the second keeps 4, 5 and 6 linked all-to-all.
  EXPECT_EQ(m["p/amd.link-domain-size"], "3");
  EXPECT_EQ(m["p/amd.link-domains"], "1");
}

TEST_F(DamagedMi210, SelectWarnsAndStillChooses) {
  test::write_file(tmp / "accelerator-config.yaml", "devices: 3\n");
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  HostRoot host(o);
  SelectRequest request;
  request.config_path = tmp / "accelerator-config.yaml";
  request.check_contracts = false;
  Diagnostics diagnostics;
  auto out = select_on_host(host, request, diagnostics);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_TRUE(out->selection);
  ASSERT_EQ(out->selection->devices.size(), 3u);
  EXPECT_EQ(out->selection->devices[0].index, 4);
  EXPECT_EQ(out->selection->devices[2].index, 6);
  auto warned = join(diagnostics.warnings(), "\n");
  EXPECT_NE(warned.find("which does not exist; left out"), std::string::npos) << warned;
  EXPECT_NE(join(out->selection->reasons, "\n").find("in one xgmi link domain"), std::string::npos)
      << join(out->selection->reasons, "\n");
}

}  // namespace anygpu
