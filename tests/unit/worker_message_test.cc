// The worker message format (src/worker/message.h, src/probe/libs/probe_protocol.h): fields round-trip any
// byte string, malformed streams are errors naming the line, and a stream cut short says which
// library the worker was in.
#include <gtest/gtest.h>

#include "probe/libs/probe_protocol.h"
#include "worker/message.h"

namespace anygpu::worker {
namespace {

TEST(WorkerMessage, FieldsRoundTripEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  auto enc = encode_field(all);
  EXPECT_EQ(enc.find_first_of(" \n\r\t"), std::string::npos);
  auto dec = decode_field(enc);
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  EXPECT_EQ(*dec, all);
  EXPECT_EQ(encode_field("NVIDIA H100 80GB"), "NVIDIA%20H100%2080GB");
  EXPECT_EQ(encode_field("100%"), "100%25");
}

TEST(WorkerMessage, MalformedFieldsAreErrors) {
  for (const char* bad : {"", "%", "%2", "%zz", "%2a", "%41", "a\tb", "\x7f"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(decode_field(bad).ok());
  }
}

TEST(WorkerMessage, ParseErrorsNameTheLine) {
  auto r = parse_records("anygpu-worker 1\nbegin nvidia nvml\nname a  b\n");
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->rfind("line 3: ", 0), 0u) << *r.error;
  EXPECT_EQ(r.records.size(), 2u);
  auto tag = parse_records("anygpu-worker 1\nBEGIN x\n");
  ASSERT_TRUE(tag.error.has_value());
  EXPECT_NE(tag.error->find("line 2"), std::string::npos);
  auto cut = parse_records("anygpu-worker 1\nbegin nvidia");
  EXPECT_FALSE(cut.error.has_value());
  EXPECT_TRUE(cut.unfinished);
  EXPECT_EQ(cut.records.size(), 1u);
}

TEST(WorkerMessage, HeaderCarriesTheVersion) {
  EXPECT_FALSE(header_error(parse_records("anygpu-worker 1\n")).has_value());
  auto newer = header_error(parse_records("anygpu-worker 2\n"));
  ASSERT_TRUE(newer.has_value());
  EXPECT_NE(newer->find("version 2"), std::string::npos) << *newer;
  EXPECT_TRUE(header_error(parse_records("hello\n")).has_value());
  EXPECT_TRUE(header_error(parse_records("")).has_value());
}

TEST(WorkerMessage, RequestRoundTrips) {
  ProbeRequest req;
  req.root = "/tmp/a root";
  req.libraries.push_back({"nvidia", "nvml", {"libnvidia-ml.so.1"}, {"/usr/lib/wsl/lib"}});
  req.libraries.push_back({"amd", "rocm-smi", {"librocm_smi64.so.6", "librocm_smi64.so"}, {}});
  auto back = decode_probe_request(encode_probe_request(req));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->root, req.root);
  ASSERT_EQ(back->libraries.size(), 2u);
  EXPECT_EQ(back->libraries[1].sonames, req.libraries[1].sonames);
  EXPECT_EQ(back->libraries[0].dirs, req.libraries[0].dirs);
  EXPECT_FALSE(decode_probe_request("anygpu-worker 1\nroot /\n").ok());  // no end
  EXPECT_FALSE(decode_probe_request("anygpu-worker 1\nsoname x\nend\n").ok());
  EXPECT_FALSE(decode_probe_request("anygpu-worker 1\nlibrary a b\nend\n").ok());  // no soname
}

LibraryResult loaded_nvml() {
  LibraryResult r;
  r.report = {"nvidia", "nvml", LibraryStatus::loaded, "/usr/lib/libnvidia-ml.so.1", std::nullopt};
  r.driver_version = "550.90.07";
  r.runtimes.push_back({"nvidia", "cuda-driver", "12.4", "nvml"});
  LibraryDeviceFacts d;
  d.address = *PciAddress::parse("0000:18:00.0");
  d.name = "NVIDIA H100 80GB HBM3";
  d.memory_total_bytes = 85520809984ULL;
  r.devices.push_back(d);
  return r;
}

TEST(WorkerMessage, ReplyRoundTrips) {
  std::string text = Writer().header().take() + encode_begin("nvidia", "nvml") +
                     encode_library(loaded_nvml(), {12, "hello"}) + std::string(kEndLine);
  auto reply = decode_probe_reply(text);
  ASSERT_FALSE(reply.error.has_value()) << *reply.error;
  EXPECT_TRUE(reply.complete);
  EXPECT_FALSE(reply.in_progress.has_value());
  ASSERT_EQ(reply.libraries.size(), 1u);
  const auto& lib = reply.libraries[0];
  EXPECT_EQ(to_string(lib.result.report.status), "loaded");
  EXPECT_EQ(lib.result.driver_version, "550.90.07");
  ASSERT_EQ(lib.result.runtimes.size(), 1u);
  EXPECT_EQ(lib.result.runtimes[0].vendor, "nvidia");
  ASSERT_EQ(lib.result.devices.size(), 1u);
  EXPECT_EQ(lib.result.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(lib.result.devices[0].memory_total_bytes, 85520809984ULL);
  EXPECT_EQ(lib.output.bytes, 12u);
  EXPECT_EQ(lib.output.excerpt, "hello");
}

TEST(WorkerMessage, CutShortReplyNamesTheLibraryInProgress) {
  std::string text = Writer().header().take() + encode_begin("amd", "amd-smi");
  auto reply = decode_probe_reply(text);
  EXPECT_FALSE(reply.error.has_value());
  EXPECT_FALSE(reply.complete);
  ASSERT_TRUE(reply.in_progress.has_value());
  EXPECT_EQ(reply.in_progress->second, "amd-smi");
}

TEST(WorkerMessage, BadRepliesAreErrors) {
  std::string h = Writer().header().take();
  const std::string bad[] = {
      h + "library nvidia nvml loaded\ndone\nend\n",                             // no begin
      h + "begin nvidia nvml\nlibrary nvidia nvml crashed\ndone\nend\n",         // parent's verdict
      h + "begin nvidia nvml\nlibrary nvidia nvml timeout\ndone\nend\n",         // parent's verdict
      h + "begin nvidia nvml\nlibrary nvidia nvml Loaded\ndone\nend\n",          // not a status
      h + "begin nvidia nvml\nlibrary amd rocm-smi loaded\ndone\nend\n",         // not what began
      h + "begin nvidia nvml\nlibrary nvidia nvml loaded\nname x\ndone\nend\n",  // no device
      h + "begin nvidia nvml\nlibrary nvidia nvml loaded\ndevice 0000:zz:00.0\ndone\nend\n",
      h + "begin nvidia nvml\nlibrary nvidia nvml loaded\ndone\nend\nbegin a b\n",
      h + "begin nvidia nvml\nend\n",
      h + "surprise\n",
      "anygpu-worker 7\n",
  };
  for (const auto& text : bad) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(decode_probe_reply(text).error.has_value());
  }
}

// Every status has one name, the one the JSON and the protocol carry; a worker may send only
// its own five, never a verdict of the parent's.
TEST(LibraryStatusNames, RoundTripAndOnlyAWorkersOwnParse) {
  const std::pair<LibraryStatus, const char*> all[] = {
      {LibraryStatus::loaded, "loaded"},
      {LibraryStatus::found, "found"},
      {LibraryStatus::missing, "missing"},
      {LibraryStatus::error, "error"},
      {LibraryStatus::disabled, "disabled"},
      {LibraryStatus::timeout, "timeout"},
      {LibraryStatus::crashed, "crashed"},
      {LibraryStatus::exited, "exited"},
      {LibraryStatus::protocol_error, "protocol-error"}};
  for (const auto& [status, name] : all) {
    SCOPED_TRACE(name);
    EXPECT_EQ(to_string(status), name);
    auto parsed = parse_worker_library_status(name);
    if (is_worker_verdict(status)) {
      EXPECT_FALSE(parsed);
    } else {
      EXPECT_EQ(parsed, status);
    }
  }
  EXPECT_FALSE(parse_worker_library_status(""));
  EXPECT_FALSE(parse_worker_library_status("protocol_error"));
}

}  // namespace
}  // namespace anygpu::worker
