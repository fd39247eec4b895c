// The request-head parser: valid heads, every framing rule that matters for a server that never
// reads bodies, and malformed input (truncated, garbage, huge, missing fields).
#include <gtest/gtest.h>

#include <string>

#include "exporter/http_request.h"

using namespace anygpu::http;
using namespace std::string_literals;

namespace {

ParseOutcome parse(const std::string& s, RequestLimits limits = {}) {
  return parse_request_head(s, limits);
}

void expect_error(const std::string& s, int status) {
  auto out = parse(s);
  EXPECT_EQ(out.status, ParseStatus::error) << s;
  EXPECT_EQ(out.error_status, status) << s << " -> " << out.error_reason;
  EXPECT_FALSE(out.error_reason.empty());
}

}  // namespace

TEST(ExporterHttpRequest, ParsesAScrape) {
  std::string head =
      "GET /metrics?name[]=x HTTP/1.1\r\nHost: 127.0.0.1:9400\r\nUser-Agent: Prometheus/2.42.0\r\n"
      "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n"
      "X-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n";
  auto out = parse(head + "GET /next");
  ASSERT_EQ(out.status, ParseStatus::complete) << out.error_reason;
  EXPECT_EQ(out.consumed, head.size());
  const auto& r = out.request;
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/metrics?name[]=x");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.minor_version, 1);
  EXPECT_TRUE(r.keep_alive);
  EXPECT_FALSE(r.has_body);
  ASSERT_EQ(r.fields.size(), 4u);
  EXPECT_EQ(r.field("user-agent").value_or(""), "Prometheus/2.42.0");
  EXPECT_EQ(r.field("x-prometheus-scrape-timeout-seconds").value_or(""), "10");
  EXPECT_FALSE(r.field("cookie").has_value());
}

TEST(ExporterHttpRequest, IncompleteUntilTheBlankLine) {
  std::string head = "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n";
  for (size_t n = 0; n < head.size(); ++n)
    EXPECT_EQ(parse(head.substr(0, n)).status, ParseStatus::incomplete) << n;
  EXPECT_EQ(parse(head).status, ParseStatus::complete);
}

TEST(ExporterHttpRequest, LoneLineFeedsAndLeadingBlankLinesAreAccepted) {
  auto out = parse("\r\n\nGET / HTTP/1.1\nhost: h\n\n");
  ASSERT_EQ(out.status, ParseStatus::complete) << out.error_reason;
  EXPECT_EQ(out.request.path, "/");
  EXPECT_EQ(out.consumed, 27u);
}

TEST(ExporterHttpRequest, ConnectionSemantics) {
  EXPECT_FALSE(parse("GET / HTTP/1.0\r\n\r\n").request.keep_alive);
  EXPECT_TRUE(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").request.keep_alive);
  EXPECT_FALSE(
      parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, CLOSE\r\n\r\n").request.keep_alive);
  EXPECT_TRUE(parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade\r\n\r\n").request.keep_alive);
  // HTTP/1.2 would be answered as 1.1 (RFC 9110 2.5).
  EXPECT_EQ(parse("GET / HTTP/1.2\r\nHost: h\r\n\r\n").request.minor_version, 2);
}

TEST(ExporterHttpRequest, TargetForms) {
  EXPECT_EQ(parse("GET http://h:9400/metrics?x HTTP/1.1\r\nHost: h\r\n\r\n").request.path,
            "/metrics");
  EXPECT_EQ(parse("GET HTTPS://h HTTP/1.1\r\nHost: h\r\n\r\n").request.path, "/");
  EXPECT_EQ(parse("GET http://h?q HTTP/1.1\r\nHost: h\r\n\r\n").request.path, "/");
  EXPECT_EQ(parse("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").request.path, "*");
  EXPECT_EQ(parse("CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n").request.path, "");
  expect_error("GET metrics HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400);
}

TEST(ExporterHttpRequest, BodiesCloseTheConnection) {
  auto cl = parse("POST /metrics HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
  ASSERT_EQ(cl.status, ParseStatus::complete);
  EXPECT_TRUE(cl.request.has_body);
  EXPECT_FALSE(cl.request.keep_alive);
  auto zero = parse("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
  EXPECT_FALSE(zero.request.has_body);
  EXPECT_TRUE(zero.request.keep_alive);
  auto same =
      parse("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(same.status, ParseStatus::complete);
  auto te = parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
  ASSERT_EQ(te.status, ParseStatus::complete);
  EXPECT_TRUE(te.request.has_body);
  EXPECT_FALSE(te.request.keep_alive);
}

TEST(ExporterHttpRequest, SmugglingShapesAreRejected) {
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400);
  expect_error(
      "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n", 400);
  expect_error("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400);
  expect_error("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400);  // space before the colon
  expect_error("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", 400);  // bare CR
  expect_error("\rGET / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
}

TEST(ExporterHttpRequest, HostIsRequiredOnceInHttp11) {
  expect_error("GET / HTTP/1.1\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
  EXPECT_EQ(parse("GET / HTTP/1.0\r\n\r\n").status, ParseStatus::complete);
}

TEST(ExporterHttpRequest, MalformedRequestLines) {
  expect_error("GET\r\n\r\n", 400);
  expect_error("GET /\r\n\r\n", 400);  // HTTP/0.9 is not served
  expect_error("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400);
  expect_error("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error(" / HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET / http/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET / HTTP/1.10\r\nHost: h\r\n\r\n", 400);
  expect_error("GET /\x7f HTTP/1.1\r\nHost: h\r\n\r\n", 400);
  expect_error("GET /\0 HTTP/1.1\r\nHost: h\r\n\r\n"s, 400);
  expect_error("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505);
  expect_error("GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505);
  expect_error("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n\n"s, 400);  // a TLS ClientHello
}

TEST(ExporterHttpRequest, MalformedFieldLines) {
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nno colon here\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\n: empty name\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\x01z\r\n\r\n", 400);
  expect_error("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\0z\r\n\r\n"s, 400);
  // obs-text (bytes >= 0x80) is allowed in values.
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: h\r\nX-A: caf\xc3\xa9\r\n\r\n").status,
            ParseStatus::complete);
}

TEST(ExporterHttpRequest, HeadSizeLimits) {
  RequestLimits limits;
  limits.max_head_bytes = 64;
  limits.max_fields = 3;
  auto long_line = parse("GET /" + std::string(100, 'a'), limits);
  EXPECT_EQ(long_line.error_status, 414);
  auto long_head = parse("GET / HTTP/1.1\r\nHost: h\r\nX-A: " + std::string(60, 'a'), limits);
  EXPECT_EQ(long_head.error_status, 431);
  auto complete_but_long =
      parse("GET / HTTP/1.1\r\nHost: h\r\nX-A: " + std::string(40, 'a') + "\r\n\r\n", limits);
  EXPECT_EQ(complete_but_long.error_status, 431);
  auto blank_flood = parse(std::string(100, '\n'), limits);
  EXPECT_EQ(blank_flood.error_status, 414);
  auto many = parse("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits);
  EXPECT_EQ(many.error_status, 431);
  // Exactly at the limit is fine.
  std::string exact = "GET / HTTP/1.1\r\nHost: h\r\nX: ";
  exact += std::string(64 - exact.size() - 4, 'a') + "\r\n\r\n";
  ASSERT_EQ(exact.size(), 64u);
  EXPECT_EQ(parse(exact, limits).status, ParseStatus::complete);
  // The default is 8 KiB.
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(9000, 'a')).error_status, 431);
}

TEST(ExporterHttpRequest, EveryPrefixOfGarbageIsHandled) {
  // Deterministic pseudo-random bytes: never a crash, never "complete" with consumed > size.
  uint32_t x = 12345;
  std::string junk;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1103515245 + 12345;
    junk.push_back(static_cast<char>((x >> 16) & 0xff));
  }
  for (size_t n = 0; n <= junk.size(); n += 7) {
    auto out = parse(junk.substr(0, n));
    if (out.status == ParseStatus::complete) {
      EXPECT_LE(out.consumed, n);
    }
    if (out.status == ParseStatus::error) {
      EXPECT_GE(out.error_status, 400);
    }
  }
}
