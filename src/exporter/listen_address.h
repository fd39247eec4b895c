// `--listen HOST:PORT`: an IPv4 literal, a bracketed IPv6 literal or "localhost", and a port
// (0 = any free port). No name resolution: an exporter binds where it was told, and a missing
// host ("":9400") is rejected rather than silently meaning every interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu::http {

struct ListenAddress {
  std::string host;  // numeric: "127.0.0.1", "::1", "0.0.0.0", "::"
  bool ipv6 = false;
  uint16_t port = 0;

  // "127.0.0.1:9400" / "[::1]:9400": how the address is written in a URL.
  std::string str() const;
};

inline constexpr std::string_view kDefaultListen = "127.0.0.1:9400";

Result<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace anygpu::http
