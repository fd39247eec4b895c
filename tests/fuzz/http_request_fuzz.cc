// HTTP/1.x request heads from untrusted clients. Parsing never crashes; a complete head is
// self-consistent (it parses the same on its own, and is incomplete one byte shorter); an error
// is one of the status codes the server sends; "incomplete" never exceeds the head limit.
#include "exporter/http_request.h"
#include "fuzz_check.h"

using namespace anygpu::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = anygpu::fuzz::as_text(data, size);
  RequestLimits limits;
  limits.max_head_bytes = 1024;  // small, so the fuzzer reaches the limits
  limits.max_fields = 16;
  auto out = parse_request_head(text, limits);
  switch (out.status) {
    case ParseStatus::incomplete:
      FUZZ_CHECK(size <= limits.max_head_bytes);
      break;
    case ParseStatus::error:
      FUZZ_CHECK(out.error_status == 400 || out.error_status == 414 || out.error_status == 431 ||
                 out.error_status == 505);
      FUZZ_CHECK(!out.error_reason.empty());
      break;
    case ParseStatus::complete: {
      const auto& r = out.request;
      FUZZ_CHECK(out.consumed > 0 && out.consumed <= size && out.consumed <= limits.max_head_bytes);
      FUZZ_CHECK(!r.method.empty() && !r.target.empty());
      for (unsigned char c : r.method) FUZZ_CHECK(is_token_char(c));
      for (unsigned char c : r.target) FUZZ_CHECK(c > 0x20 && c < 0x7f);
      FUZZ_CHECK(r.path.empty() ? r.method == "CONNECT" : (r.path[0] == '/' || r.path == "*"));
      FUZZ_CHECK(r.fields.size() <= limits.max_fields);
      for (const auto& [name, value] : r.fields) {
        FUZZ_CHECK(!name.empty());
        for (unsigned char c : name) FUZZ_CHECK(is_token_char(c) && !(c >= 'A' && c <= 'Z'));
        for (unsigned char c : value) FUZZ_CHECK(c == '\t' || (c >= 0x20 && c != 0x7f));
      }
      FUZZ_CHECK(!(r.has_body && r.keep_alive));
      auto alone = parse_request_head(text.substr(0, out.consumed), limits);
      FUZZ_CHECK(alone.status == ParseStatus::complete && alone.consumed == out.consumed);
      FUZZ_CHECK(alone.request.path == r.path && alone.request.fields == r.fields);
      auto shorter = parse_request_head(text.substr(0, out.consumed - 1), limits);
      FUZZ_CHECK(shorter.status == ParseStatus::incomplete);
      break;
    }
  }
  return 0;
}
