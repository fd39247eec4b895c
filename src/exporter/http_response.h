// HTTP/1.1 responses: a status, a few fields and a body shared by pointer, so the cached
// metrics page is never copied per scrape.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace anygpu::http {

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::shared_ptr<const std::string> body;
  std::vector<std::pair<std::string, std::string>> fields;  // extra fields, e.g. Allow
  bool close = false;  // the server closes the connection after this response
};

std::string_view reason_phrase(int status);

// A small text/plain response whose body is `text` plus a newline.
Response text_response(int status, std::string_view text);

// Status line and header fields, ending with the blank line. Content-Length is the body's size
// also for HEAD (RFC 9110 9.3.2); `keep_alive` false adds "Connection: close".
std::string serialize_head(const Response& response, bool keep_alive, std::string_view date);

// IMF-fixdate for the Date field: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string http_date(std::chrono::system_clock::time_point t);

}  // namespace anygpu::http
