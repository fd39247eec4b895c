// HTTP/1.x request heads (RFC 9112): the request line and header fields, parsed by a pure
// function so that every malformed input ends in a status code instead of undefined state.
// The exporter never reads request bodies; a request that announces one is answered and the
// connection closed, which is always correct and keeps the server free of body framing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace anygpu::http {

struct RequestLimits {
  size_t max_head_bytes = 8 << 10;  // request line + fields + blank line
  size_t max_fields = 100;
};

struct Request {
  std::string method;  // case-sensitive token, e.g. "GET"
  std::string target;  // as sent: "/metrics?x=1"
  std::string path;    // target without the query: "/metrics"
  int minor_version = 1;
  std::vector<std::pair<std::string, std::string>> fields;  // names lower-cased, values trimmed
  bool keep_alive = true;  // HTTP/1.1 default, or HTTP/1.0 with "Connection: keep-alive"
  bool has_body = false;   // Content-Length > 0 or Transfer-Encoding present

  // First value of a field (name in lower case), if present.
  std::optional<std::string_view> field(std::string_view lower_name) const;
};

enum class ParseStatus { incomplete, complete, error };

struct ParseOutcome {
  ParseStatus status = ParseStatus::incomplete;
  Request request;       // when complete
  size_t consumed = 0;   // bytes of the head, blank line included (when complete)
  int error_status = 0;  // 400, 414, 431, 501 or 505 (when error)
  std::string error_reason;
};

// Parses the head at the start of `data`. `incomplete` means: read more bytes (never returned
// once `data` holds more than max_head_bytes without a complete head).
ParseOutcome parse_request_head(std::string_view data, const RequestLimits& limits = {});

// RFC 9110 token characters (method and field names).
bool is_token_char(unsigned char c);

}  // namespace anygpu::http
