#include "exporter/http_response.h"

#include <ctime>

namespace anygpu::http {

std::string_view reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

Response text_response(int status, std::string_view text) {
  Response r;
  r.status = status;
  std::string body(text);
  body += '\n';
  r.body = std::make_shared<const std::string>(std::move(body));
  return r;
}

std::string serialize_head(const Response& response, bool keep_alive, std::string_view date) {
  std::string head;
  head.reserve(256);
  head += "HTTP/1.1 ";
  head += std::to_string(response.status);
  head += ' ';
  head += reason_phrase(response.status);
  head += "\r\nDate: ";
  head += date;
  head += "\r\nContent-Type: ";
  head += response.content_type;
  head += "\r\nContent-Length: ";
  head += std::to_string(response.body ? response.body->size() : 0);
  head += "\r\n";
  for (const auto& [name, value] : response.fields) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  if (!keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

std::string http_date(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  auto n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

}  // namespace anygpu::http
