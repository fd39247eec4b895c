// Xe Link from Level Zero's per-GPU fabric answers (src/topo/xelink.cc) on synthetic Intel
// GPUs: counted links, one domain, one-sided or disagreeing answers and bad far ends left out
// with a warning naming Level Zero, the not-read warning kept only while the links are unknown.
// Then the worker records that carry them (src/probe/libs/probe_protocol.cc): a round trip, and
// malformed records refused.
#include <gtest/gtest.h>

#include "probe/libs/probe_protocol.h"
#include "topo/closeness.h"
#include "topo/topology_output.h"
#include "topo/xelink.h"
#include "worker/message.h"

namespace anygpu {
namespace {

struct XeGpus {
  std::vector<Device> devices;
  Topology t;
  bool read = false;
  explicit XeGpus(size_t n, const char* arch = "xe-hpc") {
    for (size_t i = 0; i < n; ++i) {
      Device d;
      d.vendor = "intel";
      d.arch = arch;
      d.index = static_cast<int>(i);
      d.pci.address = {0, static_cast<uint8_t>(0x10 * (i + 1)), 0, 0};
      d.xelink.emplace();
      devices.push_back(d);
    }
  }
  void says(size_t from, size_t to, int edges) {
    devices[from].xelink->peers.push_back({devices[to].pci.address, edges});
  }
  void pair(size_t a, size_t b, int edges) { says(a, b, edges), says(b, a, edges); }
  const Topology& run() {
    for (const auto& d : devices) t.devices.push_back(TopoDevice{&d, {}, {}, {}, {}});
    read = add_xe_links(t);
    return t;
  }
  bool warned(const std::string& text) const {
    for (const auto& w : t.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  }
};

std::string xelink_reply_with(const std::string& device_lines) {
  return "anygpu-worker 1\nbegin intel level-zero\nlibrary intel level-zero loaded\n"
         "device 0000:29:00.0\n" +
         device_lines + "done\nend\n";
}

}  // namespace

TEST(TopoXeLink, PairsCarryTheirEdgeCount) {
  XeGpus s(4);
  s.pair(0, 1, 4), s.pair(2, 3, 2);
  const auto& t = s.run();
  EXPECT_TRUE(s.read);
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.links.size(), 2u);
  ASSERT_TRUE(t.link(1, 0));
  EXPECT_EQ(t.link(0, 1)->kind, "xelink");
  EXPECT_EQ(t.link(0, 1)->count, 4);
  EXPECT_EQ(direct_link_count(*t.link(0, 1)), 4);
  EXPECT_EQ(device_cell(t, 0, 1), "XL4");
  EXPECT_EQ(device_cell(t, 3, 2), "XL2");
  auto domains = link_domains(t);
  ASSERT_EQ(domains.size(), 2u);
  EXPECT_EQ(domains[0].kind, "xelink");
  EXPECT_EQ(domains[0].devices, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(domains[1].devices, (std::vector<size_t>{2, 3}));
  auto text = topology_to_text(t);
  EXPECT_NE(text.find("  XL#  = Xe Link: # edges"), std::string::npos);
}

TEST(TopoXeLink, NoLinksPrintNoLegend) {
  XeGpus s(2);
  const auto& t = s.run();
  EXPECT_TRUE(s.read);  // read, and none: the fabric said so
  EXPECT_TRUE(t.links.empty());
  EXPECT_EQ(topology_to_text(t).find("XL#"), std::string::npos);
}

TEST(TopoXeLink, OneSidedAnswerIsLeftOutWhenTheOtherEndAnswered) {
  XeGpus s(3);
  s.pair(0, 1, 2), s.says(0, 2, 2);
  const auto& t = s.run();
  EXPECT_TRUE(t.link(0, 1));
  EXPECT_FALSE(t.link(0, 2));
  EXPECT_TRUE(
      s.warned("Level Zero zeFabricEdgeGetExp: 0000:10:00.0 reports Xe Link to 0000:30:00.0, "
               "which does not report it back; left out"));
}

TEST(TopoXeLink, EndsThatDisagreeOnTheCountAreLeftOut) {
  XeGpus s(2);
  s.says(0, 1, 2), s.says(1, 0, 3);
  const auto& t = s.run();
  EXPECT_TRUE(t.links.empty());
  EXPECT_TRUE(s.warned("0000:10:00.0 and 0000:20:00.0 disagree on their Xe Link edges (2 and 3)"));
}

TEST(TopoXeLink, OneSidedAnswerStandsWhenTheOtherEndIsUnknown) {
  XeGpus s(2);
  s.says(0, 1, 2);
  s.devices[1].xelink->unknown = "zeFabricEdgeGetExp failed";
  const auto& t = s.run();
  ASSERT_TRUE(t.link(0, 1));
  EXPECT_EQ(t.link(0, 1)->count, 2);
  EXPECT_FALSE(s.read);
  EXPECT_TRUE(s.warned("Level Zero: Xe Link of 0000:20:00.0 unknown: zeFabricEdgeGetExp failed"));
}

TEST(TopoXeLink, FarEndsThatAreNoIntelGpuOrItselfAreLeftOut) {
  XeGpus s(2);
  s.devices[0].xelink->peers.push_back({{0, 0x77, 0, 0}, 1});
  s.says(1, 1, 1);
  const auto& t = s.run();
  EXPECT_TRUE(t.links.empty());
  EXPECT_TRUE(
      s.warned("(0000:10:00.0): far end 0000:77:00.0 is no Intel GPU of this host; link left"));
  EXPECT_TRUE(s.warned("(0000:20:00.0): far end is the GPU itself; link left out"));
}

TEST(TopoXeLink, MaxCardsWithoutAnAnswerLeaveXeLinkUnread) {
  XeGpus s(2);
  s.devices[1].xelink.reset();  // Level Zero did not list it
  s.run();
  EXPECT_FALSE(s.read);
  XeGpus none(0);
  none.run();
  EXPECT_FALSE(none.read);
  // Only Max (xe-hpc) cards count: Arc GPUs without an answer do not leave Xe Link unread, and
  // their reasons are not said.
  XeGpus arcs(2, "xe-hpg");
  arcs.devices[0].xelink->unknown = "no zeFabricVertexGetExp in this Level Zero loader";
  arcs.run();
  EXPECT_FALSE(arcs.read);
  EXPECT_TRUE(arcs.t.warnings.empty());
}

TEST(TopoXeLinkProtocol, RoundTrip) {
  LibraryResult r;
  r.report = {"intel", "level-zero", LibraryStatus::loaded, {}, {}};
  LibraryDeviceFacts a, b, c;
  a.address = {0, 0x29, 0, 0};
  a.xelink = XeLinkFacts{{{{0, 0x9a, 0, 0}, 4}, {{0, 0x41, 0, 0}, 1}}, std::nullopt};
  b.address = {0, 0x9a, 0, 0};
  b.xelink = XeLinkFacts{{}, "zeFabricEdgeGetExp failed: 0x78000001"};
  c.address = {0, 0x06, 0, 0};
  r.devices = {a, b, c};
  auto text = worker::Writer().header().take() + worker::encode_begin("intel", "level-zero") +
              worker::encode_library(r, {}) + std::string(worker::kEndLine);
  auto reply = worker::decode_probe_reply(text);
  ASSERT_FALSE(reply.error) << *reply.error;
  const auto& d = reply.libraries.at(0).result.devices;
  ASSERT_EQ(d.size(), 3u);
  ASSERT_TRUE(d[0].xelink && !d[0].xelink->unknown);
  ASSERT_EQ(d[0].xelink->peers.size(), 2u);
  EXPECT_EQ(d[0].xelink->peers[0].address, (PciAddress{0, 0x9a, 0, 0}));
  EXPECT_EQ(d[0].xelink->peers[0].edges, 4);
  EXPECT_EQ(d[0].xelink->peers[1].address, (PciAddress{0, 0x41, 0, 0}));
  EXPECT_EQ(d[0].xelink->peers[1].edges, 1);
  ASSERT_TRUE(d[1].xelink);
  EXPECT_EQ(d[1].xelink->unknown, "zeFabricEdgeGetExp failed: 0x78000001");
  EXPECT_FALSE(d[2].xelink);
}

TEST(TopoXeLinkProtocol, MalformedRecordsAreRefused) {
  for (const char* bad : {
           "xelink 0000:9a:00.0 2\n",                                  // no 'xelinks' before
           "xelinks\nxelink 0000:9a:00 2\n",                           // not a PCI address
           "xelinks\nxelink 0000:9a:00.0 2\nxelink 0000:9a:00.0 2\n",  // one peer twice
           "xelinks\nxelink 0000:9a:00.0 0\n",                         // no edges
           "xelinks\nxelink 0000:9a:00.0 -2\n",                        // not a count
           "xelinks\nxelink 0000:9a:00.0 two\n",                       // not a number
           "xelinks\nxelink 0000:9a:00.0 99999999999\n",               // past any fabric
           "xelinks\nxelink 0000:9a:00.0\n",                           // no count
           "xelinks\nxelinks\n",                                       // twice
           "xelinks-unknown why\nxelink 0000:9a:00.0 2\n",             // peers after 'unknown'
           "xelinks-unknown\n",                                        // no reason
           "xelinks extra\n",                                          // a field too many
       }) {
    auto reply = worker::decode_probe_reply(xelink_reply_with(bad));
    EXPECT_TRUE(reply.error) << bad;
  }
}

}  // namespace anygpu
