// `anygpu ps` pod names: HTTP/2 frames, HPACK (RFC 7541 Appendix C vectors), the protobuf wire
// reader, the pod-resources List reply, the device-id rules, the matching rule, and the gRPC
// exchange against a scripted server on a socketpair — each with malformed input.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "ps/grpc_unix.h"
#include "ps/http2.h"
#include "ps/pod_resources.h"
#include "ps/protobuf_wire.h"
#include "test_support.h"

using namespace anygpu;
using namespace anygpu::ps;

namespace {

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

// A tiny protobuf encoder for building replies.
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string bytes_field(uint32_t number, std::string_view value) {
  return varint(uint64_t{number} << 3 | 2) + varint(value.size()) + std::string(value);
}
std::string varint_field(uint32_t number, uint64_t value) {
  return varint(uint64_t{number} << 3) + varint(value);
}

std::string devices_msg(std::string_view resource, std::vector<std::string> ids) {
  std::string m = bytes_field(1, resource);
  for (const auto& id : ids) m += bytes_field(2, id);
  return m;
}
std::string pod_msg(std::string_view name, std::string_view ns, std::string_view container,
                    const std::string& devices) {
  std::string c = bytes_field(1, container) + varint_field(3, 7);  // cpu_ids: skipped
  if (!devices.empty()) c += bytes_field(2, devices);
  return bytes_field(1, name) + bytes_field(2, ns) + bytes_field(3, c);
}

}  // namespace

TEST(PsHttp2, FramesRoundTripAndBounds) {
  auto wire = http2::encode_frame(http2::kHeaders, http2::kFlagEndHeaders, 1, "abc");
  ASSERT_EQ(wire.size(), 12u);
  for (size_t cut = 0; cut < wire.size(); ++cut) {
    std::string part = wire.substr(0, cut);
    auto f = http2::take_frame(part);
    ASSERT_TRUE(f) << cut;
    EXPECT_FALSE(*f) << "a frame from " << cut << " bytes";
  }
  std::string buf = wire + "x";
  auto f = http2::take_frame(buf);
  ASSERT_TRUE(f && *f);
  EXPECT_EQ((*f)->type, http2::kHeaders);
  EXPECT_EQ((*f)->stream, 1u);
  EXPECT_EQ((*f)->payload, "abc");
  EXPECT_EQ(buf, "x");
  std::string huge = unhex("004001000000000001");  // 16385 bytes: past the default maximum
  EXPECT_FALSE(http2::take_frame(huge));
  std::string reserved_bit = unhex("000000040080000001");
  auto r = http2::take_frame(reserved_bit);
  ASSERT_TRUE(r && *r);
  EXPECT_EQ((*r)->stream, 1u);  // the reserved bit is ignored (RFC 9113 §4.1)
}

TEST(PsHttp2, PaddingAndPriority) {
  http2::Frame f{http2::kData, http2::kFlagPadded, 1, std::string("\x02hi\0\0", 5)};
  auto c = http2::frame_content(f);
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, "hi");
  f.payload = std::string("\x05hi", 3);  // more padding than payload
  EXPECT_FALSE(http2::frame_content(f));
  f.payload = "";
  EXPECT_FALSE(http2::frame_content(f));
  http2::Frame h{http2::kHeaders, http2::kFlagPriority, 1, std::string("\0\0\0\0\x10z", 6)};
  c = http2::frame_content(h);
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, "z");
  h.payload = "abc";
  EXPECT_FALSE(http2::frame_content(h));
}

TEST(PsHpack, HuffmanRfcVectors) {
  // RFC 7541 C.4.1-C.4.3.
  EXPECT_EQ(http2::huffman_decode(unhex("f1e3c2e5f23a6ba0ab90f4ff")).value_or(""),
            "www.example.com");
  EXPECT_EQ(http2::huffman_decode(unhex("a8eb10649cbf")).value_or(""), "no-cache");
  EXPECT_EQ(http2::huffman_decode(unhex("25a849e95bb8e8b4bf")).value_or(""), "custom-value");
  EXPECT_EQ(http2::huffman_decode("").value_or("x"), "");
  // Padding of 8 ones is a whole EOS prefix byte: refused; a zero padding bit: refused.
  EXPECT_FALSE(http2::huffman_decode(unhex("a8eb10649cbfff")));
  EXPECT_FALSE(http2::huffman_decode(unhex("a8eb10649cbe")));
  EXPECT_FALSE(http2::huffman_decode(unhex("fffffffc")));  // EOS (30 ones) inside a string
  // Every truncation of a valid string decodes to a prefix or is refused.
  auto coded = unhex("f1e3c2e5f23a6ba0ab90f4ff");
  for (size_t cut = 0; cut < coded.size(); ++cut) {
    auto d = http2::huffman_decode(coded.substr(0, cut));
    if (d) {
      EXPECT_TRUE(std::string("www.example.com").starts_with(*d)) << cut;
    }
  }
}

TEST(PsHpack, RfcResponsesWithHuffmanAndEviction) {
  // RFC 7541 C.6: three responses through a 256-byte dynamic table.
  http2::HpackDecoder d(256);
  auto r1 = d.decode(unhex(
      "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c7"
      "8f0b97c8e9ae82ae43d3"));
  ASSERT_TRUE(r1) << r1.error().message;
  ASSERT_EQ(r1->size(), 4u);
  EXPECT_EQ((*r1)[0], (std::pair<std::string, std::string>{":status", "302"}));
  EXPECT_EQ((*r1)[3].second, "https://www.example.com");
  auto r2 = d.decode(unhex("4883640effc1c0bf"));
  ASSERT_TRUE(r2) << r2.error().message;
  EXPECT_EQ((*r2)[0].second, "307");
  EXPECT_EQ((*r2)[2].second, "Mon, 21 Oct 2013 20:13:21 GMT");
  auto r3 = d.decode(unhex(
      "88c16196d07abe941054d444a8200595040b8166e084a62d1bffc05a839bd9ab77ad94e7821dd7f2e6c7b335"
      "dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007"));
  ASSERT_TRUE(r3) << r3.error().message;
  ASSERT_EQ(r3->size(), 6u);
  EXPECT_EQ((*r3)[5].second, "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1");
  // C.6.3's table holds three entries (215 bytes): 62-64 resolve, 65 is past it.
  auto last = d.decode(unhex("be"));
  ASSERT_TRUE(last);
  EXPECT_EQ((*last)[0].first, "set-cookie");
  EXPECT_EQ(d.decode(unhex("c0")).value()[0].second, "Mon, 21 Oct 2013 20:13:22 GMT");
  EXPECT_FALSE(d.decode(unhex("c1")));
}

TEST(PsHpack, TableSizeUpdatesAndLiterals) {
  http2::HpackDecoder d(4096);
  // A size update to 256 first, as a server whose table differs from the default sends it.
  auto r = d.decode(unhex("3fe101") + unhex("48826402"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)[0].second, "302");
  EXPECT_FALSE(http2::HpackDecoder(256).decode(unhex("3fe11f")));         // past what we advertised
  EXPECT_FALSE(http2::HpackDecoder().decode(unhex("82") + unhex("20")));  // after a field
  auto lit = http2::hpack_literal("grpc-status", "0") + http2::hpack_literal("x", "");
  auto back = http2::HpackDecoder().decode(lit);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, (http2::Headers{{"grpc-status", "0"}, {"x", ""}}));
  std::string long_value(300, 'v');
  back = http2::HpackDecoder().decode(http2::hpack_literal("k", long_value));
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)[0].second, long_value);
}

TEST(PsHpack, MalformedBlocks) {
  for (const char* hex : {
           "80",                // index 0
           "ff00",              // index 190: past an empty dynamic table
           "ffffffffffffff7f",  // integer past 2^35
           "ff",                // integer cut short
           "0003616263",        // value length missing
           "000a61",            // name longer than the block
           "0081ff",            // Huffman name of 8 ones: bad padding
       })
    EXPECT_FALSE(http2::HpackDecoder().decode(unhex(hex))) << hex;
  // Every truncation of the RFC block: a prefix of its fields or an error, never a crash.
  auto block = unhex(
      "488264025885aec3771a4b6196d07abe941054d444a8200595040b8166e082a62d1bff6e919d29ad171863c7"
      "8f0b97c8e9ae82ae43d3");
  for (size_t cut = 0; cut < block.size(); ++cut) {
    auto r = http2::HpackDecoder(256).decode(block.substr(0, cut));
    if (r) {
      EXPECT_LT(r->size(), 4u) << cut;
    }
  }
  // A header list larger than accepted.
  EXPECT_FALSE(
      http2::HpackDecoder(4096, 100).decode(http2::hpack_literal("k", std::string(80, 'v'))));
}

TEST(PsProtobuf, VarintsLengthsAndWireTypes) {
  protobuf::Field f;
  {
    // The Reader views its input: the message must outlive it.
    std::string wire = varint_field(1, UINT64_MAX) + bytes_field(2, "hi");
    protobuf::Reader r(wire);
    ASSERT_TRUE(r.next(f).value_or(false));
    EXPECT_EQ(f.varint, UINT64_MAX);
    ASSERT_TRUE(r.next(f).value_or(false));
    EXPECT_EQ(f.bytes, "hi");
    EXPECT_FALSE(r.next(f).value_or(true));
  }
  for (const auto& bad : {
           unhex("08" + std::string(20, 'f') + "01"),  // 11-byte varint
           unhex("08ffffffffffffffffff02"),            // 10th byte past 64 bits
           unhex("0880"),                              // varint cut short
           unhex("0a05616263"),                        // length past the message
           unhex("0aff"),                              // length varint cut short
           unhex("0b"),                                // start group (wire type 3)
           unhex("0e00"),                              // wire type 6
           unhex("0000"),                              // field number 0
           unhex("0d0102"),                            // fixed32 cut short
           unhex("f8ffffffffffffffff0100"),            // field number past 2^29-1
       }) {
    protobuf::Reader r(bad);
    EXPECT_FALSE(r.next(f)) << testing::PrintToString(bad);
  }
}

TEST(PsPodResources, ParsesListAndDropsBadNames) {
  auto msg = bytes_field(1, pod_msg("train-0", "ml", "trainer",
                                    devices_msg("nvidia.com/gpu", {"GPU-a", "GPU-b"}))) +
             bytes_field(1, pod_msg("Bad_Name", "ml", "c", "")) +
             bytes_field(1, pod_msg("web", "default", "nginx", "")) + varint_field(9, 1);
  auto pods = parse_list_response(msg);
  ASSERT_TRUE(pods) << pods.error().message;
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].name, "train-0");
  EXPECT_EQ((*pods)[0].namespace_, "ml");
  ASSERT_EQ((*pods)[0].containers.size(), 1u);
  EXPECT_EQ((*pods)[0].containers[0].devices[0].device_ids,
            (std::vector<std::string>{"GPU-a", "GPU-b"}));
  EXPECT_EQ((*pods)[1].name, "web");
  // Every truncation is an error or a shorter list, never a crash or an invented pod.
  for (size_t cut = 0; cut < msg.size(); ++cut) {
    auto r = parse_list_response(msg.substr(0, cut));
    if (r) {
      EXPECT_LE(r->size(), 2u) << cut;
    }
  }
  EXPECT_FALSE(parse_list_response(varint_field(1, 5)));  // a pod that is not a message
  EXPECT_FALSE(parse_list_response(bytes_field(1, bytes_field(1, std::string(300, 'a')))));
  std::string many;
  for (int i = 0; i < 5000; ++i) many += bytes_field(2, "x");
  EXPECT_FALSE(
      parse_list_response(bytes_field(1, pod_msg("p", "n", "c", bytes_field(1, "r") + many))));
}

TEST(PsPodResources, DeviceIdsPerPlugin) {
  const auto& nv = test::fixture_inventory("h100-8x");
  const Device* gpu0 = test::find_device(nv, "0000:18:00.0");
  ASSERT_TRUE(gpu0 && gpu0->uuid);
  EXPECT_EQ(device_for_id(nv, "nvidia.com/gpu", *gpu0->uuid), "0000:18:00.0");
  EXPECT_EQ(device_for_id(nv, "nvidia.com/gpu", *gpu0->uuid + "::3"), "0000:18:00.0");
  EXPECT_EQ(device_for_id(nv, "nvidia.com/gpu", "0"), "");  // deviceIDStrategy=index: not named
  EXPECT_EQ(device_for_id(nv, "nvidia.com/gpu", "GPU-00000000-0000-0000-0000-000000000000"), "");
  const auto& amd = test::fixture_inventory("mi300x-8x");
  EXPECT_EQ(device_for_id(amd, "amd.com/gpu", "0000:05:00.0"), "0000:05:00.0");
  EXPECT_EQ(device_for_id(amd, "amd.com/gpu", "0000:ff:00.0"), "");
  const auto& intel = test::fixture_inventory("intel-max-arc");
  const Device* arc = test::find_device(intel, "0000:29:00.0");
  ASSERT_TRUE(arc && arc->card_node);
  EXPECT_EQ(*arc->card_node, "/dev/dri/card1");
  EXPECT_EQ(device_for_id(intel, "gpu.intel.com/i915", "card1-0"), "0000:29:00.0");
  EXPECT_EQ(device_for_id(intel, "gpu.intel.com/xe", "card1-12"), "0000:29:00.0");
  EXPECT_EQ(device_for_id(intel, "example.com/other", "card1-0"), "");  // not Intel's plugin
  EXPECT_EQ(device_for_id(intel, "gpu.intel.com/i915", "card1"), "");
  EXPECT_EQ(device_for_id(intel, "gpu.intel.com/i915", "card-0"), "");
}

TEST(PsPodResources, NamesOnlyUnambiguousPods) {
  const auto& inv = test::fixture_inventory("h100-8x");
  auto uuid = [&](const char* bus) { return *test::find_device(inv, bus)->uuid; };
  auto proc = [](int pid, std::vector<std::string> devices, std::optional<std::string> uid) {
    ProcessInfo p;
    p.pid = pid;
    p.devices = std::move(devices);
    p.attribution.pod_uid = std::move(uid);
    return p;
  };
  std::vector<PodResources> pods(3);
  pods[0] = {
      "a", "ns", {{"c", {{"nvidia.com/gpu", {uuid("0000:18:00.0"), uuid("0000:2a:00.0")}}}}}};
  pods[1] = {"b", "ns", {{"c", {{"nvidia.com/gpu", {uuid("0000:3a:00.0") + "::0"}}}}}};
  pods[2] = {"c", "ns", {{"c", {{"nvidia.com/gpu", {uuid("0000:3a:00.0") + "::1"}}}}}};
  std::vector<ProcessInfo> ps{
      proc(1, {"0000:18:00.0"}, "uid-a"),                  // a subset of pod a's GPUs
      proc(2, {"0000:18:00.0", "0000:2a:00.0"}, "uid-a"),  // all of them
      proc(3, {"0000:3a:00.0"}, "uid-b"),                  // a GPU pods b and c share
      proc(4, {"0000:18:00.0"}, std::nullopt),             // not in a pod
      proc(5, {"0000:18:00.0", "0000:bb:00.0"}, "uid-x"),  // also an unallocated GPU
  };
  attach_pod_names(inv, pods, ps);
  EXPECT_EQ(ps[0].pod_name.value_or(""), "a");
  EXPECT_EQ(ps[0].pod_namespace.value_or(""), "ns");
  EXPECT_EQ(ps[1].pod_name.value_or(""), "a");
  EXPECT_FALSE(ps[2].pod_name);  // time-sliced: either pod
  EXPECT_FALSE(ps[3].pod_name);
  EXPECT_FALSE(ps[4].pod_name);
  // Two pod uids whose processes hold the same pod's GPUs: neither is named.
  std::vector<ProcessInfo> twice{proc(1, {"0000:18:00.0"}, "uid-a"),
                                 proc(2, {"0000:2a:00.0"}, "uid-z")};
  attach_pod_names(inv, pods, twice);
  EXPECT_FALSE(twice[0].pod_name);
  EXPECT_FALSE(twice[1].pod_name);
  // One uid whose processes point at two pods: not named.
  std::vector<ProcessInfo> split{proc(1, {"0000:18:00.0"}, "uid-a"),
                                 proc(2, {"0000:3a:00.0"}, "uid-a")};
  pods[2].containers.clear();  // now 0000:3a:00.0 is pod b's alone
  attach_pod_names(inv, pods, split);
  EXPECT_FALSE(split[0].pod_name);
  EXPECT_FALSE(split[1].pod_name);
}

namespace {

// Runs grpc_exchange against a scripted peer: `reply` is written after the client's bytes
// arrive (all of them, or `deadline` passes), then the peer keeps the socket open.
Result<std::string> exchange_with(std::string reply, bool close_after = false,
                                  std::chrono::milliseconds deadline = std::chrono::seconds(2)) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return internal_error("sp");
  std::string received;
  std::thread peer([&] {
    char buf[4096];
    // The preface, SETTINGS, WINDOW_UPDATE, HEADERS and DATA arrive in one write.
    ssize_t n = ::read(sv[1], buf, sizeof buf);
    if (n > 0) received.assign(buf, static_cast<size_t>(n));
    if (!reply.empty()) (void)!::write(sv[1], reply.data(), reply.size());
    if (close_after) ::shutdown(sv[1], SHUT_WR);
  });
  GrpcCall call;
  call.method = "/v1.PodResourcesLister/List";
  call.deadline = deadline;
  auto r = grpc_exchange(sv[0], call);
  ::shutdown(sv[0], SHUT_RDWR);
  peer.join();
  ::close(sv[0]);
  ::close(sv[1]);
  EXPECT_TRUE(received.starts_with(http2::kClientPreface));
  return r;
}

std::string headers_frame(const std::string& block, uint8_t flags) {
  return http2::encode_frame(http2::kHeaders, flags | http2::kFlagEndHeaders, 1, block);
}
std::string ok_headers() {
  return headers_frame(http2::hpack_literal(":status", "200") +
                           http2::hpack_literal("content-type", "application/grpc"),
                       0);
}
std::string grpc_data(const std::string& message) {
  std::string body(1, '\0');
  for (int shift : {24, 16, 8, 0}) body += static_cast<char>((message.size() >> shift) & 0xff);
  return http2::encode_frame(http2::kData, 0, 1, body + message);
}
std::string trailers(const char* status, const char* message = nullptr) {
  std::string block = http2::hpack_literal("grpc-status", status);
  if (message) block += http2::hpack_literal("grpc-message", message);
  return headers_frame(block, http2::kFlagEndStream);
}
const std::string kSettings = http2::encode_frame(http2::kSettings, 0, 0, "");

}  // namespace

TEST(PsGrpc, UnaryExchange) {
  auto r = exchange_with(kSettings + ok_headers() + grpc_data("hello") + trailers("0"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "hello");
  // A PING and a padded DATA split in two frames are handled.
  std::string padded = http2::encode_frame(http2::kData, http2::kFlagPadded, 1,
                                           std::string("\x01\0\0\0\0\x02", 6) + std::string(1, 0));
  r = exchange_with(kSettings + http2::encode_frame(http2::kPing, 0, 0, "12345678") + ok_headers() +
                    padded + http2::encode_frame(http2::kData, 0, 1, "ok") + trailers("0"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "ok");
}

TEST(PsGrpc, FailuresAreErrors) {
  auto trailers_only = headers_frame(http2::hpack_literal(":status", "200") +
                                         http2::hpack_literal("grpc-status", "14") +
                                         http2::hpack_literal("grpc-message", "down%20now"),
                                     http2::kFlagEndStream);
  auto r = exchange_with(kSettings + trailers_only);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("gRPC status 14: down now"), std::string::npos)
      << r.error().message;
  struct Case {
    const char* what;
    std::string reply;
    bool close;
  };
  std::vector<Case> cases{
      {"no grpc-status",
       kSettings + ok_headers() + grpc_data("x") +
           headers_frame(http2::hpack_literal("x", "y"), http2::kFlagEndStream),
       false},
      {"status 404", headers_frame(http2::hpack_literal(":status", "404"), http2::kFlagEndStream),
       false},
      {"DATA before headers", grpc_data("x") + trailers("0"), false},
      {"reset", ok_headers() + http2::encode_frame(http2::kRstStream, 0, 1, unhex("00000002")),
       false},
      {"goaway", http2::encode_frame(http2::kGoaway, 0, 0, unhex("0000000000000001")), false},
      {"closed early", kSettings + ok_headers(), true},
      {"garbage", "HTTP/1.1 400 Bad Request\r\n\r\n", true},
      {"oversize frame", unhex("ffffff040000000000"), false},
      {"compressed",
       ok_headers() + http2::encode_frame(http2::kData, 0, 1, unhex("0100000000")) + trailers("0"),
       false},
      {"length mismatch",
       ok_headers() + http2::encode_frame(http2::kData, 0, 1, unhex("0000000009")) + trailers("0"),
       false},
      {"bad HPACK", headers_frame(unhex("80"), 0), false},
      {"push", http2::encode_frame(http2::kPushPromise, http2::kFlagEndHeaders, 1, "\0\0\0\2"),
       false},
      {"bad SETTINGS", http2::encode_frame(http2::kSettings, 0, 0, "abc"), false},
      {"interrupted block", http2::encode_frame(http2::kHeaders, 0, 1, "") + kSettings, false},
  };
  for (const auto& c : cases) {
    auto e = exchange_with(c.reply, c.close, std::chrono::milliseconds(500));
    EXPECT_FALSE(e) << c.what;
  }
  // Every truncation of a good reply, then the peer closes: an error, never a partial answer.
  auto good = kSettings + ok_headers() + grpc_data("hello") + trailers("0");
  for (size_t cut = 0; cut < good.size(); cut += 3)
    EXPECT_FALSE(exchange_with(good.substr(0, cut), true, std::chrono::milliseconds(500))) << cut;
}

TEST(PsGrpc, DeadlineBoundsASilentServer) {
  auto start = std::chrono::steady_clock::now();
  auto r = exchange_with("", false, std::chrono::milliseconds(150));
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("deadline"), std::string::npos);
  EXPECT_LT(took, std::chrono::seconds(2));
}
