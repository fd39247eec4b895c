// HCCS links from DCMI's per-NPU answers (src/topo/hccs.cc) on synthetic NPUs: a full mesh, two
// rings, one-sided answers and bad far ends left out with a warning naming DCMI. Then the worker
// records that carry HCCS and vNPU facts (src/probe/libs/probe_protocol.cc): a round trip, and
// malformed records refused; and the DCMI ABI's layouts and constants against the header copies.
#include <gtest/gtest.h>

#include <cstddef>

#include "probe/libs/probe_protocol.h"
#include "topo/closeness.h"
#include "topo/hccs.h"
#include "vendorlib/dcmi/abi.h"
#include "worker/message.h"

namespace anygpu {
namespace {

struct Npus {
  std::vector<Device> devices;
  Topology t;
  bool read = false;
  explicit Npus(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      Device d;
      d.vendor = "ascend";
      d.index = static_cast<int>(i);
      d.pci.address = {0, static_cast<uint8_t>(0x10 * (i + 1)), 0, 0};
      d.hccs.emplace();
      devices.push_back(d);
    }
  }
  void says(size_t from, size_t to) {
    devices[from].hccs->peers.push_back(devices[to].pci.address);
  }
  void ring(size_t first, size_t n) {
    for (size_t i = first; i < first + n; ++i)
      for (size_t j = first; j < first + n; ++j)
        if (i != j) says(i, j);
  }
  const Topology& run() {
    for (const auto& d : devices) t.devices.push_back(TopoDevice{&d, {}, {}, {}, {}});
    read = add_hccs_links(t);
    return t;
  }
  bool warned(const std::string& text) const {
    for (const auto& w : t.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  }
};

std::string hccs_reply_with(const std::string& device_lines) {
  return "anygpu-worker 1\nbegin ascend dcmi\nlibrary ascend dcmi loaded\ndevice 0000:01:00.0\n" +
         device_lines + "done\nend\n";
}

}  // namespace

TEST(TopoHccs, FullMeshOfEightIsOneDomain) {
  Npus s(8);
  s.ring(0, 8);
  const auto& t = s.run();
  EXPECT_TRUE(s.read);
  EXPECT_EQ(t.links.size(), 28u);
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_TRUE(t.link(2, 7));
  EXPECT_EQ(t.link(2, 7)->kind, "hccs");
  EXPECT_FALSE(t.link(2, 7)->count);  // DCMI does not count lanes
  EXPECT_EQ(direct_link_count(*t.link(2, 7)), 1);
  auto domains = link_domains(t);
  ASSERT_EQ(domains.size(), 1u);
  EXPECT_EQ(domains[0].kind, "hccs");
  EXPECT_EQ(domains[0].devices.size(), 8u);
}

TEST(TopoHccs, TwoRingsOfFourAreTwoDomains) {
  Npus s(8);
  s.ring(0, 4), s.ring(4, 4);
  const auto& t = s.run();
  EXPECT_EQ(t.links.size(), 12u);
  EXPECT_FALSE(t.link(3, 4));
  auto domains = link_domains(t);
  ASSERT_EQ(domains.size(), 2u);
  EXPECT_EQ(domains[0].devices, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(domains[1].devices, (std::vector<size_t>{4, 5, 6, 7}));
}

TEST(TopoHccs, OneSidedAnswerIsLeftOutWhenTheOtherEndAnswered) {
  Npus s(3);
  s.says(0, 1), s.says(1, 0), s.says(0, 2);
  const auto& t = s.run();
  EXPECT_TRUE(t.link(0, 1));
  EXPECT_FALSE(t.link(0, 2));
  EXPECT_TRUE(
      s.warned("DCMI dcmi_get_topo_info_by_device_id: 0000:10:00.0 reports HCCS to "
               "0000:30:00.0, which does not report it back; left out"));
}

TEST(TopoHccs, OneSidedAnswerStandsWhenTheOtherEndIsUnknown) {
  Npus s(2);
  s.says(0, 1);
  s.devices[1].hccs->unknown = "dcmi_get_topo_info_by_device_id failed";
  const auto& t = s.run();
  EXPECT_TRUE(t.link(0, 1));
  EXPECT_FALSE(s.read);
  EXPECT_TRUE(s.warned("DCMI: HCCS links of 0000:20:00.0 unknown: dcmi_get_topo_info"));
}

TEST(TopoHccs, FarEndsThatAreNoNpuOrItselfAreLeftOut) {
  Npus s(2);
  s.devices[0].hccs->peers.push_back({0, 0x77, 0, 0});
  s.says(1, 1);
  const auto& t = s.run();
  EXPECT_TRUE(t.links.empty());
  EXPECT_TRUE(s.warned("(0000:10:00.0): far end 0000:77:00.0 is no NPU of this host; link left"));
  EXPECT_TRUE(s.warned("(0000:20:00.0): far end is the NPU itself; link left out"));
}

TEST(TopoHccs, NpusWithoutAnAnswerLeaveHccsUnread) {
  Npus s(2);
  s.devices[1].hccs.reset();  // DCMI did not list it
  s.says(0, 1);
  s.run();
  EXPECT_FALSE(s.read);
  Npus none(0);
  none.run();
  EXPECT_FALSE(none.read);
}

// The header copies' values (abi.h names them): DCMI_TOPO_TYPE_HCCS 3, _HCCS_SW 7, _BUTT 9,
// DCMI_MAIN_CMD_VDEV_MNG 52, and the vdev structs as LP64 lays them out.
TEST(DcmiAbi, TopologyAndVdevLayouts) {
  EXPECT_EQ(dcmi::kTopoHccs, 3);
  EXPECT_EQ(dcmi::kTopoHccsSw, 7);
  EXPECT_EQ(dcmi::kTopoUnknown, 9);
  EXPECT_EQ(dcmi::kMainCmdVdevMng, 52);
  EXPECT_EQ(offsetof(dcmi::VdevQuery, info), 8u);
  EXPECT_EQ(offsetof(dcmi::VdevQueryInfo, base), 40u);
  EXPECT_EQ(offsetof(dcmi::VdevQueryInfo, computing), 104u);
  EXPECT_EQ(offsetof(dcmi::VdevComputing, memory_size), 24u);
  EXPECT_EQ(offsetof(dcmi::VdevTotal, vfg_num), 132u);
  EXPECT_EQ(offsetof(dcmi::VdevTotal, base), 144u);
}

TEST(TopoHccsProtocol, RoundTrip) {
  LibraryResult r;
  r.report = {"ascend", "dcmi", LibraryStatus::loaded, {}, {}};
  LibraryDeviceFacts a, b, c;
  a.address = {0, 0x01, 0, 0};
  a.hccs = HccsFacts{{{0, 0x02, 0, 0}, {0, 0x41, 0, 0}}, std::nullopt};
  a.vnpus.push_back({100, "vir04", 4.0, 32ull << 30});
  a.vnpus.push_back({101, std::nullopt, 0.5, std::nullopt});
  b.address = {0, 0x02, 0, 0};
  b.hccs = HccsFacts{{}, "not supported"};
  c.address = {0, 0x41, 0, 0};
  r.devices = {a, b, c};
  auto text = worker::Writer().header().take() + worker::encode_begin("ascend", "dcmi") +
              worker::encode_library(r, {}) + std::string(worker::kEndLine);
  auto reply = worker::decode_probe_reply(text);
  ASSERT_FALSE(reply.error) << *reply.error;
  const auto& d = reply.libraries.at(0).result.devices;
  ASSERT_EQ(d.size(), 3u);
  ASSERT_TRUE(d[0].hccs && !d[0].hccs->unknown);
  EXPECT_EQ(d[0].hccs->peers, a.hccs->peers);
  ASSERT_EQ(d[0].vnpus.size(), 2u);
  EXPECT_EQ(d[0].vnpus[0].vdev_id, 100u);
  EXPECT_EQ(d[0].vnpus[0].template_name, "vir04");
  EXPECT_EQ(d[0].vnpus[0].ai_cores, 4.0);
  EXPECT_EQ(d[0].vnpus[0].memory_total_bytes, 32ull << 30);
  EXPECT_FALSE(d[0].vnpus[1].template_name);
  EXPECT_EQ(d[0].vnpus[1].ai_cores, 0.5);
  EXPECT_EQ(d[1].hccs->unknown, "not supported");
  EXPECT_FALSE(d[2].hccs);
  EXPECT_TRUE(d[2].vnpus.empty());
}

TEST(TopoHccsProtocol, MalformedRecordsAreRefused) {
  for (const char* bad : {
           "hccs 0000:02:00.0\n",                                 // no 'hccs-links' before
           "hccs-links\nhccs 0000:02:00\n",                       // not a PCI address
           "hccs-links\nhccs 0000:02:00.0\nhccs 0000:02:00.0\n",  // one peer twice
           "hccs-links\nhccs-links\n",                            // twice
           "hccs-unknown why\nhccs 0000:02:00.0\n",               // peers after 'unknown'
           "hccs-unknown\n",                                      // no reason
           "hccs-links extra\n",                                  // a field too many
           "vnpu-template vir04\n",                               // before any 'vnpu'
           "vnpu x\n",                                            // not an id
           "vnpu 4294967296\n",                                   // over an unsigned int
           "vnpu 100\nvnpu-template a\nvnpu-template b\n",        // twice
           "vnpu 100\nvnpu-aicores 0\n",                          // no AI Cores
           "vnpu 100\nvnpu-aicores 5000\n",                       // more than any chip
           "vnpu 100\nvnpu-aicores four\n",                       // not a number
           "vnpu 100\nvnpu-memory -1\n",                          // not a size
           "vnpu 100\nvnpu-memory 1\nvnpu-memory 1\n",            // twice
       }) {
    auto reply = worker::decode_probe_reply(hccs_reply_with(bad));
    EXPECT_TRUE(reply.error) << bad;
  }
}

}  // namespace anygpu
