// Choosing n of more devices by their links (SelectInputs::closeness): one link domain first,
// then one PCIe switch, then today's NUMA node and root complex; ties keep bus order, and links
// naming devices that are not there (or not eligible) change nothing.
#include <gtest/gtest.h>

#include "select/select.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {

const Inventory& h100() {
  return test::fixture_inventory("h100-8x");  // NUMA node 0: devices 0-3, node 1: 4-7
}

std::string bus(const Inventory& inv, size_t i) {
  return inv.devices.at(i).pci.address.str();
}

void link(Closeness& c, const Inventory& inv, size_t a, size_t b) {
  auto x = bus(inv, a), y = bus(inv, b);
  c.links[x < y ? std::pair(x, y) : std::pair(y, x)] = DirectLink{"xgmi", 1};
}

// Every two of `devices` linked.
Closeness mesh(const Inventory& inv, std::vector<std::vector<size_t>> domains) {
  Closeness c;
  for (const auto& d : domains)
    for (size_t i = 0; i < d.size(); ++i)
      for (size_t j = i + 1; j < d.size(); ++j) link(c, inv, d[i], d[j]);
  return c;
}

Selection choose(const Inventory& inv, int n, SelectInputs in) {
  AcceleratorConfig cfg;
  cfg.count = n;
  auto s = select_devices(inv, cfg, in);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

std::vector<int> indices(const Selection& s) {
  std::vector<int> out;
  for (const auto& d : s.devices) out.push_back(d.index);
  return out;
}

std::string reasons(const Selection& s) {
  return join(s.reasons, "\n");
}

}  // namespace

TEST(SelectLinks, NoLinksKeepsTheNumaChoice) {
  EXPECT_EQ(indices(choose(h100(), 2, {})), (std::vector<int>{0, 1}));
  EXPECT_EQ(indices(choose(h100(), 4, {})), (std::vector<int>{0, 1, 2, 3}));
}

TEST(SelectLinks, ALinkedPairBeatsBusOrder) {
  SelectInputs in;
  in.closeness = mesh(h100(), {{1, 3}});
  auto s = choose(h100(), 2, in);
  EXPECT_EQ(indices(s), (std::vector<int>{1, 3}));
  EXPECT_NE(reasons(s).find("chose 2 of 8 eligible nvidia devices in one xgmi link domain: every "
                            "two of them are directly linked"),
            std::string::npos)
      << reasons(s);
}

TEST(SelectLinks, ALinkDomainBeatsOneNumaNode) {
  SelectInputs in;
  in.closeness = mesh(h100(), {{2, 3, 4, 5}});
  EXPECT_EQ(indices(choose(h100(), 4, in)), (std::vector<int>{2, 3, 4, 5}));
  // Three of the domain is still one domain; the first in bus order.
  EXPECT_EQ(indices(choose(h100(), 3, in)), (std::vector<int>{2, 3, 4}));
}

TEST(SelectLinks, TiesKeepBusOrder) {
  SelectInputs in;
  in.closeness = mesh(h100(), {{5, 6}, {4, 7}, {2, 3}});
  EXPECT_EQ(indices(choose(h100(), 2, in)), (std::vector<int>{2, 3}));
}

TEST(SelectLinks, TooFewLinkedSaysSoAndFallsBackToNuma) {
  SelectInputs in;
  in.closeness = mesh(h100(), {{4, 5}});
  auto s = choose(h100(), 3, in);
  EXPECT_EQ(indices(s), (std::vector<int>{0, 1, 2}));
  EXPECT_NE(reasons(s).find("no xgmi link domain has 3 of them (the largest has 2)"),
            std::string::npos)
      << reasons(s);
}

TEST(SelectLinks, OnePcieSwitchBeatsOneNumaNode) {
  SelectInputs in;
  in.closeness.pcie_switch[bus(h100(), 5)] = "pci0000:80/0000:80:01.0";
  in.closeness.pcie_switch[bus(h100(), 7)] = "pci0000:80/0000:80:01.0";
  in.closeness.pcie_switch[bus(h100(), 0)] = "pci0000:00/0000:00:01.0";
  auto s = choose(h100(), 2, in);
  EXPECT_EQ(indices(s), (std::vector<int>{5, 7}));
  EXPECT_NE(reasons(s).find("behind one PCIe switch (below pci0000:80/0000:80:01.0)"),
            std::string::npos)
      << reasons(s);
  // A link domain comes before a switch.
  in.closeness = mesh(h100(), {{3, 6}});
  in.closeness.pcie_switch[bus(h100(), 5)] = "pci0000:80/0000:80:01.0";
  in.closeness.pcie_switch[bus(h100(), 7)] = "pci0000:80/0000:80:01.0";
  EXPECT_EQ(indices(choose(h100(), 2, in)), (std::vector<int>{3, 6}));
}

TEST(SelectLinks, LinksToDevicesNotEligibleOrNotThereChangeNothing) {
  SelectInputs in;
  in.closeness = mesh(h100(), {{0, 1}});
  in.closeness.links[{"0000:ee:00.0", "0000:ff:00.0"}] = DirectLink{"xgmi", 1};
  in.closeness.pcie_switch["0000:ee:00.0"] = "pci0000:e0/0000:e0:01.0";
  in.caller_env["CUDA_VISIBLE_DEVICES"] = "1,2,3";
  auto s = choose(h100(), 2, in);
  EXPECT_EQ(indices(s), (std::vector<int>{1, 2}));
  EXPECT_EQ(reasons(s).find("link domain"), std::string::npos) << reasons(s);
}

TEST(SelectLinks, PartitionsOfLinkedDevicesAreLinked) {
  // Eight CPX partitions per device: ten units need two devices; linked devices 0 and 3 win
  // over devices 0 and 1.
  const auto& cpx = test::fixture_inventory("mi300x-8x-cpx");
  SelectInputs in;
  in.closeness = mesh(cpx, {{0, 3}});
  auto s = choose(cpx, 10, in);
  ASSERT_EQ(s.devices.size(), 10u);
  ASSERT_EQ(s.partitions.size(), 10u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(s.devices[i].pci.address.str(), bus(cpx, 0)) << i;
  EXPECT_EQ(s.devices[8].pci.address.str(), bus(cpx, 3));
  EXPECT_EQ(s.devices[9].pci.address.str(), bus(cpx, 3));
  EXPECT_EQ(s.partition_of(9)->index, 1);
  EXPECT_NE(reasons(s).find("chose 10 of 63 eligible amd units in one xgmi link domain"),
            std::string::npos)
      << reasons(s);
}

}  // namespace anygpu
