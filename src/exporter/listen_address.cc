#include "exporter/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "util/strings.h"

namespace anygpu::http {

std::string ListenAddress::str() const {
  auto p = std::to_string(port);
  return ipv6 ? cat({"[", host, "]:", p}) : cat({host, ":", p});
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return bad_input(cat({"--listen ", text, ": ", why,
                          " (expected HOST:PORT, e.g. 127.0.0.1:9400, 0.0.0.0:9400 or "
                          "[::1]:9400)"}));
  };
  ListenAddress a;
  std::string_view host, port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return bad("missing ']' after the IPv6 address");
    host = text.substr(1, close - 1);
    auto rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return bad("missing ':PORT' after ']'");
    port = rest.substr(1);
    in6_addr v6{};
    if (inet_pton(AF_INET6, std::string(host).c_str(), &v6) != 1) return bad("not an IPv6 address");
    a.ipv6 = true;
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("missing ':PORT'");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return bad("an IPv6 address needs brackets");
    if (host.empty()) return bad("missing host");
    if (host == "localhost") host = "127.0.0.1";
    in_addr v4{};
    if (inet_pton(AF_INET, std::string(host).c_str(), &v4) != 1)
      return bad("not an IPv4 address or \"localhost\"");
  }
  bool digits = !port.empty() && port.size() <= 5 &&
                port.find_first_not_of("0123456789") == std::string_view::npos;
  auto n = digits ? parse_uint(port) : std::nullopt;
  if (!n || *n > 65535) return bad("port must be 0-65535");
  a.host = std::string(host);
  a.port = static_cast<uint16_t>(*n);
  return a;
}

}  // namespace anygpu::http
