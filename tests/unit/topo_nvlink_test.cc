// NVLink links from NVML's per-device answers (src/topo/nvlink.cc) on synthetic devices: direct
// links counted from both ends, NVSwitch fabrics, the GB200 sentinel far end, and every kind of
// bad answer left out with a warning naming NVML. Then the worker records that carry the answers
// (src/probe/libs/probe_protocol.cc): a round trip, and malformed records refused.
#include <gtest/gtest.h>

#include "probe/libs/probe_protocol.h"
#include "topo/nvlink.h"
#include "vendorlib/nvml/abi.h"
#include "worker/message.h"

namespace anygpu {
namespace {

struct Synthetic {
  std::vector<Device> devices;
  Topology t;
  explicit Synthetic(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      Device d;
      d.vendor = "nvidia";
      d.index = static_cast<int>(i);
      d.pci.address = {0, static_cast<uint8_t>(0x10 * (i + 1)), 0, 0};
      d.nvlink.emplace();
      devices.push_back(d);
    }
  }
  // Link `link` of device `from` goes to device `to`'s address.
  void gpu_link(size_t from, unsigned link, size_t to) {
    const auto& a = devices[to].pci.address;
    devices[from].nvlink->active.push_back({link, a.domain, a.bus, a.device, NvLinkPeer::gpu});
  }
  void switch_link(size_t from, unsigned link, uint64_t switch_bus) {
    devices[from].nvlink->active.push_back({link, 0, switch_bus, 0, NvLinkPeer::nvswitch});
  }
  void pair(size_t a, size_t b, unsigned links) {
    for (unsigned k = 0; k < links; ++k) {
      gpu_link(a, static_cast<unsigned>(devices[a].nvlink->active.size()), b);
      gpu_link(b, static_cast<unsigned>(devices[b].nvlink->active.size()), a);
    }
  }
  const Topology& run() {
    for (const auto& d : devices) t.devices.push_back(TopoDevice{&d, {}, {}, {}, {}});
    add_nvlinks(t);
    return t;
  }
  std::optional<int> count(size_t a, size_t b) const {
    const auto* l = t.link(a, b);
    return l ? l->count : std::nullopt;
  }
  bool warned(const std::string& text) const {
    for (const auto& w : t.warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  }
};

}  // namespace

TEST(TopoNvLink, DirectLinksCountedPerPair) {
  Synthetic s(4);
  s.pair(0, 1, 2), s.pair(2, 3, 2), s.pair(0, 2, 1), s.pair(1, 3, 1);
  const auto& t = s.run();
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
  ASSERT_EQ(t.links.size(), 4u);
  EXPECT_EQ(s.count(0, 1), 2);
  EXPECT_EQ(s.count(2, 3), 2);
  EXPECT_EQ(s.count(2, 0), 1);
  EXPECT_EQ(s.count(0, 3), std::nullopt);
  EXPECT_EQ(t.link(0, 1)->kind, "nvlink");
}

TEST(TopoNvLink, GpusBehindTheSameSwitchesAreOneFabric) {
  Synthetic s(5);
  for (size_t g = 0; g < 4; ++g)
    for (unsigned k = 0; k < 18; ++k) s.switch_link(g, k, k < 5 ? 5 : k < 9 ? 6 : k < 13 ? 7 : 8);
  // GPU 4 reaches other switches only: a fabric of its own, with no peer.
  for (unsigned k = 0; k < 18; ++k) s.switch_link(4, k, 0x40);
  const auto& t = s.run();
  EXPECT_TRUE(t.warnings.empty());
  EXPECT_EQ(t.links.size(), 6u);
  EXPECT_EQ(s.count(0, 3), 18);
  EXPECT_EQ(s.count(3, 4), std::nullopt);
}

TEST(TopoNvLink, FabricsJoinThroughASharedSwitchAndCountTheFewerLinks) {
  Synthetic s(3);
  for (unsigned k = 0; k < 4; ++k) s.switch_link(0, k, 5);
  for (unsigned k = 0; k < 6; ++k) s.switch_link(1, k, k < 3 ? 5 : 6);
  for (unsigned k = 0; k < 6; ++k) s.switch_link(2, k, 6);
  s.run();
  EXPECT_EQ(s.count(0, 1), 4);
  EXPECT_EQ(s.count(0, 2), 4);  // through 1's switches
  EXPECT_EQ(s.count(1, 2), 6);
}

TEST(TopoNvLink, AnUnnamedFarEndSeveralGpusReachIsASwitch) {
  Synthetic s(3);
  for (size_t g = 0; g < 3; ++g)
    for (unsigned k = 0; k < 12; ++k)
      s.devices[g].nvlink->active.push_back({k, 0, k < 6 ? 5u : 6u, 0, NvLinkPeer::unknown});
  const auto& t = s.run();
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
  EXPECT_EQ(s.count(0, 2), 12);
}

TEST(TopoNvLink, SentinelFarEndIsTheSwitchTray) {
  Synthetic s(2);
  for (size_t g = 0; g < 2; ++g)
    for (unsigned k = 0; k < 18; ++k)
      s.devices[g].nvlink->active.push_back({k, 0xfffffff, 0xff, 0xff, NvLinkPeer::unknown});
  const auto& t = s.run();
  EXPECT_TRUE(t.warnings.empty());
  EXPECT_EQ(s.count(0, 1), 18);
}

TEST(TopoNvLink, UnknownLinksAreSaidAndNothingIsInvented) {
  Synthetic s(2);
  s.devices[0].nvlink->unknown = "no nvmlDeviceGetNvLinkState in this NVML";
  s.devices[1].nvlink.reset();  // no library asked: silent
  const auto& t = s.run();
  EXPECT_TRUE(t.links.empty());
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0],
            "NVML: NVLinks of 0000:10:00.0 unknown: no nvmlDeviceGetNvLinkState in this NVML");
}

TEST(TopoNvLink, OneSidedAnswerStandsWhenTheOtherEndIsUnknown) {
  Synthetic s(2);
  s.gpu_link(0, 0, 1), s.gpu_link(0, 1, 1);
  s.devices[1].nvlink->unknown = "nvmlDeviceGetNvLinkState failed on link 0: Unknown Error (999)";
  s.run();
  EXPECT_EQ(s.count(0, 1), 2);
}

TEST(TopoNvLink, FarEndThatIsNoDeviceIsLeftOut) {
  Synthetic s(2);
  s.pair(0, 1, 1);
  s.devices[0].nvlink->active.push_back({5, 0, 0x77, 0, NvLinkPeer::gpu});
  s.devices[0].nvlink->active.push_back({6, 0, 0x78, 0, NvLinkPeer::unknown});
  s.run();
  EXPECT_EQ(s.count(0, 1), 1);
  EXPECT_TRUE(
      s.warned("NVML nvmlDeviceGetNvLinkRemotePciInfo_v2 (0000:10:00.0 link 5): far end "
               "0000:77:00.0 is no accelerator of this host; link left out"));
  EXPECT_TRUE(
      s.warned("NVML nvmlDeviceGetNvLinkRemotePciInfo_v2 (0000:10:00.0): 1 link(s) to "
               "0000:78:00.0, which is no accelerator of this host and which NVML does "
               "not name (nvmlDeviceGetNvLinkRemoteDeviceType); left out"));
}

TEST(TopoNvLink, SelfLinksAndImpossibleAddressesAreLeftOut) {
  Synthetic s(2);
  s.gpu_link(0, 0, 0);
  s.devices[0].nvlink->active.push_back({1, 0, 0x1ff, 0, NvLinkPeer::gpu});
  s.devices[0].nvlink->active.push_back({2, 0, 0x20, 0x40, NvLinkPeer::nvswitch});
  s.devices[1].nvlink->active.push_back({0, 0x100000000ULL, 0x10, 0, NvLinkPeer::gpu});
  const auto& t = s.run();
  EXPECT_TRUE(t.links.empty());
  EXPECT_TRUE(s.warned("(0000:10:00.0 link 0): far end is the device itself; link left out"));
  EXPECT_TRUE(s.warned("(0000:10:00.0 link 1): far end 0000:1ff:00.0 is no PCI address"));
  EXPECT_TRUE(s.warned("(0000:10:00.0 link 2): far end 0000:20:40.0 is no PCI address"));
  EXPECT_TRUE(s.warned("(0000:20:00.0 link 0): far end 100000000:10:00.0 is no PCI address"));
}

TEST(TopoNvLink, AsymmetricCountsAreLeftOut) {
  Synthetic s(3);
  s.pair(0, 1, 2);
  s.gpu_link(0, 2, 1);  // 0 says 3, 1 says 2
  s.pair(1, 2, 1);
  s.run();
  EXPECT_EQ(s.count(0, 1), std::nullopt);
  EXPECT_EQ(s.count(1, 2), 1);
  EXPECT_TRUE(
      s.warned("NVML nvmlDeviceGetNvLinkRemotePciInfo_v2: 0000:10:00.0 reports 3 NVLinks "
               "to 0000:20:00.0, which reports 2 back; left out"));
}

TEST(TopoNvLink, AbsurdCountsAreLeftOut) {
  Synthetic s(2);
  for (unsigned k = 0; k < 30; ++k) s.gpu_link(0, k, 1), s.gpu_link(1, k, 0);
  const auto& t = s.run();
  EXPECT_TRUE(t.links.empty());
  EXPECT_TRUE(s.warned("30 NVLinks between 0000:10:00.0 and 0000:20:00.0 (at most 18 exist)"));
}

namespace {

std::string reply_with(const std::string& device_lines) {
  return "anygpu-worker 1\nbegin nvidia nvml\nlibrary nvidia nvml loaded\ndevice 0000:18:00.0\n" +
         device_lines + "done\nend\n";
}

}  // namespace

// nvml.h: NVML_NVLINK_MAX_LINKS 36; nvmlEnableState_t and nvmlIntNvLinkDeviceType_t are C enums
// (int-sized); NVML_FEATURE_ENABLED 1; NVML_NVLINK_DEVICE_TYPE_GPU 0, _IBMNPU 1, _SWITCH 2.
TEST(TopoNvLinkAbi, ConstantsMatchNvmlH) {
  static_assert(nvml::kNvLinkMaxLinks == 36 && kMaxNvLinks == nvml::kNvLinkMaxLinks);
  static_assert(sizeof(nvml::EnableState) == sizeof(int));
  static_assert(sizeof(nvml::NvLinkDeviceType) == sizeof(int));
  static_assert(nvml::kFeatureEnabled == 1 && nvml::kNvLinkDeviceGpu == 0 &&
                nvml::kNvLinkDeviceIbmNpu == 1 && nvml::kNvLinkDeviceSwitch == 2);
  EXPECT_EQ(to_string(NvLinkPeer::nvswitch), "switch");
  EXPECT_EQ(parse_nvlink_peer("ibm-npu"), NvLinkPeer::ibm_npu);
  EXPECT_EQ(parse_nvlink_peer("Switch"), std::nullopt);
}

TEST(TopoNvLinkProtocol, RoundTrip) {
  LibraryResult r;
  r.report = {"nvidia", "nvml", LibraryStatus::loaded, {}, {}};
  LibraryDeviceFacts a{{0, 0x18, 0, 0}, {}, {}, {}, {}, {}, NvLinkFacts{}, {}, {}, {}};
  a.nvlink->active.push_back({0, 0, 5, 0, NvLinkPeer::nvswitch});
  a.nvlink->active.push_back({17, 0xfffffff, 0xff, 0xff, NvLinkPeer::unknown});
  LibraryDeviceFacts b{
      {0, 0x2a, 0, 0}, {}, {}, {}, {}, {}, NvLinkFacts{{}, "no symbol here"}, {}, {}, {}};
  LibraryDeviceFacts c{{0, 0x3a, 0, 0}, {}, {}, {}, {}, {}, std::nullopt, {}, {}, {}};
  r.devices = {a, b, c};
  auto text = worker::Writer().header().take() + worker::encode_begin("nvidia", "nvml") +
              worker::encode_library(r, {}) + std::string(worker::kEndLine);
  auto reply = worker::decode_probe_reply(text);
  ASSERT_FALSE(reply.error) << *reply.error;
  const auto& d = reply.libraries.at(0).result.devices;
  ASSERT_EQ(d.size(), 3u);
  ASSERT_TRUE(d[0].nvlink && !d[0].nvlink->unknown);
  ASSERT_EQ(d[0].nvlink->active.size(), 2u);
  EXPECT_EQ(d[0].nvlink->active[1].link, 17u);
  EXPECT_EQ(d[0].nvlink->active[1].domain, 0xfffffffu);
  EXPECT_EQ(d[0].nvlink->active[0].peer, NvLinkPeer::nvswitch);
  EXPECT_EQ(d[1].nvlink->unknown, "no symbol here");
  EXPECT_FALSE(d[2].nvlink);
}

TEST(TopoNvLinkProtocol, MalformedRecordsAreRefused) {
  for (const char* bad : {
           "nvlink 0 0 5 0 switch\n",            // no 'nvlinks' before
           "nvlinks\nnvlink 36 0 5 0 switch\n",  // link index over NVML's range
           "nvlinks\nnvlink 1 0 5 0 switch\nnvlink 1 0 6 0 switch\n",  // one link twice
           "nvlinks\nnvlink 1 4294967296 5 0 gpu\n",                   // over an unsigned int
           "nvlinks\nnvlink 1 0 5 0 router\n",                         // no such far end
           "nvlinks\nnvlink 1 0 -5 0 gpu\n",                           // not a number
           "nvlinks\nnvlink 1 0 5 gpu\n",                              // a field short
           "nvlinks\nnvlinks\n",                                       // twice
           "nvlinks-unknown why\nnvlink 0 0 5 0 gpu\n",                // links after 'unknown'
           "nvlinks-unknown\n",                                        // no reason
           "nvlinks extra\n",                                          // a field too many
       }) {
    auto reply = worker::decode_probe_reply(reply_with(bad));
    EXPECT_TRUE(reply.error) << bad;
  }
  auto outside = worker::decode_probe_reply(
      "anygpu-worker 1\nbegin nvidia nvml\nlibrary nvidia nvml loaded\nnvlinks\ndone\nend\n");
  EXPECT_TRUE(outside.error);
}

}  // namespace anygpu
