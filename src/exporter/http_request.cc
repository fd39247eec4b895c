#include "exporter/http_request.h"

#include <algorithm>

namespace anygpu::http {

namespace {

ParseOutcome failure(int status, std::string reason) {
  ParseOutcome out;
  out.status = ParseStatus::error;
  out.error_status = status;
  out.error_reason = std::move(reason);
  return out;
}

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string to_lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = lower(c);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lower(x) == lower(y); });
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return is_token_char(static_cast<unsigned char>(c));
  });
}

// Field values: visible characters, obs-text, space and tab; no other control characters.
bool is_field_value(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    auto c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

bool is_target_char(unsigned char c) {
  return c > 0x20 && c < 0x7f;
}

// Comma-separated list elements, trimmed, empty ones dropped (RFC 9110 5.6.1).
std::vector<std::string_view> list_elements(std::string_view value) {
  std::vector<std::string_view> out;
  while (!value.empty()) {
    auto comma = value.find(',');
    auto item = trim_ows(value.substr(0, comma));
    if (!item.empty()) out.push_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<uint64_t> parse_length(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;  // 18 digits cannot overflow
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// The path of an origin-form ("/p?q"), absolute-form ("http://h/p?q") or asterisk-form target.
std::optional<std::string> target_path(std::string_view method, std::string_view target) {
  if (target == "*") return std::string("*");
  if (target.front() != '/') {
    std::string_view rest;
    if (istarts_with(target, "http://")) {
      rest = target.substr(7);
    } else if (istarts_with(target, "https://")) {
      rest = target.substr(8);
    } else if (method == "CONNECT") {
      return std::string();  // authority-form: no path; routing answers 405
    } else {
      return std::nullopt;
    }
    auto slash = rest.find_first_of("/?");
    if (slash == std::string_view::npos) return std::string("/");
    target = rest.substr(slash);
    if (target.front() == '?') return std::string("/");
  }
  return std::string(target.substr(0, target.find('?')));
}

struct Line {
  std::string_view text;
  size_t next = 0;  // offset after the line terminator
};

enum class LineStatus { ok, incomplete, bare_cr };

// One line from `pos`; CRLF or a lone LF ends it (RFC 9112 2.2 lets recipients accept LF).
LineStatus next_line(std::string_view data, size_t pos, Line& line) {
  auto nl = data.find('\n', pos);
  if (nl == std::string_view::npos) return LineStatus::incomplete;
  auto text = data.substr(pos, nl - pos);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (text.find('\r') != std::string_view::npos) return LineStatus::bare_cr;
  line = {text, nl + 1};
  return LineStatus::ok;
}

ParseOutcome parse_request_line(std::string_view text, Request& req) {
  auto sp1 = text.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : text.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || text.find(' ', sp2 + 1) != std::string_view::npos)
    return failure(400, "malformed request line");
  auto method = text.substr(0, sp1);
  auto target = text.substr(sp1 + 1, sp2 - sp1 - 1);
  auto version = text.substr(sp2 + 1);
  if (!is_token(method)) return failure(400, "malformed method");
  if (target.empty() || !std::all_of(target.begin(), target.end(), [](char c) {
        return is_target_char(static_cast<unsigned char>(c));
      }))
    return failure(400, "malformed request target");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9')
    return failure(400, "malformed HTTP version");
  if (version[5] != '1') return failure(505, "only HTTP/1.x is supported");
  auto path = target_path(method, target);
  if (!path) return failure(400, "malformed request target");
  req.method = std::string(method);
  req.target = std::string(target);
  req.path = std::move(*path);
  req.minor_version = version[7] - '0';
  return {};
}

// Framing and connection semantics from the fields (RFC 9112 3.2, 6.1, 6.3, 9.3).
ParseOutcome apply_fields(Request& req) {
  size_t hosts = 0;
  std::optional<uint64_t> content_length;
  bool transfer_encoding = false, chunked_last = false, close = false, keep_alive = false;
  for (const auto& [name, value] : req.fields) {
    if (name == "host") {
      ++hosts;
    } else if (name == "content-length") {
      auto items = list_elements(value);
      if (items.empty()) return failure(400, "malformed Content-Length");
      for (auto item : items) {
        auto n = parse_length(item);
        if (!n || (content_length && *content_length != *n))
          return failure(400, "malformed Content-Length");
        content_length = n;
      }
    } else if (name == "transfer-encoding") {
      transfer_encoding = true;
      auto items = list_elements(value);
      chunked_last = !items.empty() && iequals(items.back(), "chunked");
    } else if (name == "connection") {
      for (auto item : list_elements(value)) {
        if (iequals(item, "close")) close = true;
        if (iequals(item, "keep-alive")) keep_alive = true;
      }
    }
  }
  if (hosts > 1 || (hosts == 0 && req.minor_version >= 1))
    return failure(400, "exactly one Host field is required");
  if (transfer_encoding) {
    if (req.minor_version == 0) return failure(400, "Transfer-Encoding in HTTP/1.0");
    if (content_length) return failure(400, "both Transfer-Encoding and Content-Length");
    if (!chunked_last) return failure(400, "unsupported Transfer-Encoding");
  }
  req.has_body = transfer_encoding || (content_length && *content_length > 0);
  req.keep_alive = !close && !req.has_body && (req.minor_version >= 1 || keep_alive);
  return {};
}

}  // namespace

bool is_token_char(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

std::optional<std::string_view> Request::field(std::string_view lower_name) const {
  for (const auto& [name, value] : fields)
    if (name == lower_name) return std::string_view(value);
  return std::nullopt;
}

ParseOutcome parse_request_head(std::string_view data, const RequestLimits& limits) {
  auto too_large = [&](bool in_request_line) {
    return in_request_line ? failure(414, "request line too long")
                           : failure(431, "request head too large");
  };
  // Empty lines before the request line are ignored (RFC 9112 2.2).
  size_t pos = 0;
  while (pos < data.size() && (data[pos] == '\r' || data[pos] == '\n')) {
    if (data[pos] == '\r' && pos + 1 < data.size() && data[pos + 1] != '\n')
      return failure(400, "bare CR");
    ++pos;
  }
  auto line_or_status = [&](Line& line, bool in_request_line) -> std::optional<ParseOutcome> {
    switch (next_line(data, pos, line)) {
      case LineStatus::incomplete:
        if (data.size() > limits.max_head_bytes) return too_large(in_request_line);
        return ParseOutcome{};
      case LineStatus::bare_cr:
        return failure(400, "bare CR");
      case LineStatus::ok:
        if (line.next > limits.max_head_bytes) return too_large(in_request_line);
        pos = line.next;
        return std::nullopt;
    }
    return failure(400, "unreachable");
  };

  Request req;
  Line line;
  if (auto stop = line_or_status(line, true)) return *stop;
  if (auto bad = parse_request_line(line.text, req); bad.status == ParseStatus::error) return bad;

  for (;;) {
    if (auto stop = line_or_status(line, false)) return *stop;
    if (line.text.empty()) break;
    if (is_ows(line.text.front())) return failure(400, "obsolete line folding");
    auto colon = line.text.find(':');
    if (colon == std::string_view::npos) return failure(400, "field line without a colon");
    auto name = line.text.substr(0, colon);
    if (!is_token(name)) return failure(400, "malformed field name");
    auto value = trim_ows(line.text.substr(colon + 1));
    if (!is_field_value(value)) return failure(400, "control character in a field value");
    if (req.fields.size() >= limits.max_fields) return failure(431, "too many header fields");
    req.fields.emplace_back(to_lower_ascii(name), std::string(value));
  }
  if (auto bad = apply_fields(req); bad.status == ParseStatus::error) return bad;

  ParseOutcome out;
  out.status = ParseStatus::complete;
  out.request = std::move(req);
  out.consumed = pos;
  return out;
}

}  // namespace anygpu::http
