#include "ps/grpc_unix.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "host/unix_socket.h"
#include "ps/http2.h"
#include "util/strings.h"

namespace anygpu::ps {

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kStream = 1;
constexpr size_t kMaxHeaderBlockBytes = 65536;

std::string setting(uint16_t id, uint32_t value) {
  std::string s;
  s += static_cast<char>(id >> 8);
  s += static_cast<char>(id & 0xff);
  for (int shift : {24, 16, 8, 0}) s += static_cast<char>((value >> shift) & 0xff);
  return s;
}

std::string u32(uint32_t v) {
  std::string s;
  for (int shift : {24, 16, 8, 0}) s += static_cast<char>((v >> shift) & 0xff);
  return s;
}

uint32_t read_u32(std::string_view p) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

int remaining_ms(Clock::time_point end) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 60000));
}

Error timed_out() {
  return host_error("no complete reply before the deadline");
}

Result<bool> send_all(int fd, std::string_view bytes, Clock::time_point end) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return host_error(cat({"send: ", std::strerror(errno)}));
    pollfd p{fd, POLLOUT, 0};
    int ms = remaining_ms(end);
    if (ms == 0 || ::poll(&p, 1, ms) == 0) return timed_out();
  }
  return true;
}

// gRPC's grpc-message is percent-encoded (PROTOCOL-HTTP2.md); shown as printable text, bounded.
std::string grpc_message(std::string_view m) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < m.size() && out.size() < 200; ++i) {
    auto c = static_cast<unsigned char>(m[i]);
    if (c == '%' && i + 2 < m.size() && hex(m[i + 1]) >= 0 && hex(m[i + 2]) >= 0) {
      c = static_cast<unsigned char>(hex(m[i + 1]) * 16 + hex(m[i + 2]));
      i += 2;
    }
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return out;
}

std::optional<std::string> header(const http2::Headers& h, std::string_view name) {
  for (const auto& [n, v] : h)
    if (n == name) return v;
  return std::nullopt;
}

// One gRPC length-prefixed message, uncompressed, exactly filling the body.
Result<std::string> unframe(std::string_view body) {
  if (body.size() < 5) return bad_input("gRPC body shorter than a message prefix");
  if (body[0] != 0) return bad_input("compressed gRPC message (none was asked for)");
  size_t length = read_u32(body.substr(1, 4));
  if (length != body.size() - 5)
    return bad_input("gRPC message of " + std::to_string(length) + " bytes in a body of " +
                     std::to_string(body.size() - 5));
  return std::string(body.substr(5));
}

}  // namespace

Result<std::string> grpc_exchange(int fd, const GrpcCall& call) {
  auto end = Clock::now() + call.deadline;
  // A stream window that holds the largest reply, so no WINDOW_UPDATE is needed from us.
  auto window = static_cast<uint32_t>(std::min<size_t>(call.max_response_bytes + 1024, 0x7fffffff));
  std::string out(http2::kClientPreface);
  out += http2::encode_frame(
      http2::kSettings, 0, 0,
      setting(0x2, 0) + setting(0x4, window) + setting(0x6, kMaxHeaderBlockBytes));
  if (window > 65535) out += http2::encode_frame(http2::kWindowUpdate, 0, 0, u32(window - 65535));
  auto ms = std::to_string(call.deadline.count());
  std::string block =
      http2::hpack_literal(":method", "POST") + http2::hpack_literal(":scheme", "http") +
      http2::hpack_literal(":path", call.method) + http2::hpack_literal(":authority", "localhost") +
      http2::hpack_literal("content-type", "application/grpc") +
      http2::hpack_literal("te", "trailers") +
      http2::hpack_literal("grpc-timeout", ms.substr(0, 8) + "m");
  out += http2::encode_frame(http2::kHeaders, http2::kFlagEndHeaders, kStream, block);
  std::string message(1, '\0');
  message += u32(static_cast<uint32_t>(call.request.size()));
  message += call.request;
  out += http2::encode_frame(http2::kData, http2::kFlagEndStream, kStream, message);
  if (auto sent = send_all(fd, out, end); !sent) return sent.error();

  http2::HpackDecoder hpack(4096, kMaxHeaderBlockBytes);
  std::string in, body, pending_block;
  std::optional<http2::Headers> response_headers, trailers;
  bool continuing = false, ended = false, end_with_block = false;
  char chunk[16384];
  while (!ended) {
    auto frame = http2::take_frame(in);
    if (!frame) return frame.error();
    if (!*frame) {
      pollfd p{fd, POLLIN, 0};
      int left = remaining_ms(end);
      if (left == 0) return timed_out();
      int r = ::poll(&p, 1, left);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return timed_out();
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) return host_error(cat({"recv: ", std::strerror(errno)}));
      if (n == 0) return host_error("the server closed the connection before the reply ended");
      in.append(chunk, static_cast<size_t>(n));
      continue;
    }
    const auto& f = **frame;
    if (continuing && f.type != http2::kContinuation)
      return bad_input("HTTP/2 header block interrupted by another frame");
    switch (f.type) {
      case http2::kSettings:
        if (f.stream != 0 || f.payload.size() % 6) return bad_input("HTTP/2 malformed SETTINGS");
        if (!(f.flags & http2::kFlagAck))
          if (auto s =
                  send_all(fd, http2::encode_frame(http2::kSettings, http2::kFlagAck, 0, ""), end);
              !s)
            return s.error();
        break;
      case http2::kPing:
        if (f.stream != 0 || f.payload.size() != 8) return bad_input("HTTP/2 malformed PING");
        if (!(f.flags & http2::kFlagAck))
          if (auto s = send_all(
                  fd, http2::encode_frame(http2::kPing, http2::kFlagAck, 0, f.payload), end);
              !s)
            return s.error();
        break;
      case http2::kGoaway: {
        if (f.payload.size() < 8) return bad_input("HTTP/2 malformed GOAWAY");
        uint32_t last = read_u32(f.payload) & 0x7fffffffu;
        uint32_t code = read_u32(std::string_view(f.payload).substr(4));
        if (last < kStream || code != 0)
          return host_error("the server went away (HTTP/2 error " + std::to_string(code) + ")");
        break;  // graceful: our stream still completes
      }
      case http2::kRstStream:
        if (f.stream == kStream) {
          if (f.payload.size() != 4) return bad_input("HTTP/2 malformed RST_STREAM");
          return host_error("the server reset the call (HTTP/2 error " +
                            std::to_string(read_u32(f.payload)) + ")");
        }
        break;
      case http2::kPushPromise:
        return bad_input("HTTP/2 PUSH_PROMISE after push was disabled");
      case http2::kHeaders:
      case http2::kContinuation: {
        if (f.stream != kStream) return bad_input("HTTP/2 headers on an unknown stream");
        if (f.type == http2::kContinuation && !continuing)
          return bad_input("HTTP/2 CONTINUATION without HEADERS");
        std::string_view content = f.payload;
        if (f.type == http2::kHeaders) {
          auto c = http2::frame_content(f);
          if (!c) return c.error();
          content = *c;
          end_with_block = f.flags & http2::kFlagEndStream;
        }
        if (pending_block.size() + content.size() > kMaxHeaderBlockBytes)
          return bad_input("HTTP/2 header block larger than accepted");
        pending_block += content;
        continuing = !(f.flags & http2::kFlagEndHeaders);
        if (continuing) break;
        auto headers = hpack.decode(pending_block);
        pending_block.clear();
        if (!headers) return headers.error();
        if (!response_headers) {
          response_headers = std::move(*headers);
        } else if (!trailers && end_with_block) {
          trailers = std::move(*headers);
        } else {
          return bad_input("HTTP/2 header block after the trailers or without END_STREAM");
        }
        if (end_with_block) ended = true;
        break;
      }
      case http2::kData: {
        if (f.stream != kStream) return bad_input("HTTP/2 DATA on an unknown stream");
        if (!response_headers) return bad_input("HTTP/2 DATA before the response headers");
        auto c = http2::frame_content(f);
        if (!c) return c.error();
        if (body.size() + c->size() > call.max_response_bytes + 5)
          return bad_input("gRPC reply larger than " + std::to_string(call.max_response_bytes) +
                           " bytes");
        body += *c;
        if (f.flags & http2::kFlagEndStream) return bad_input("gRPC reply without trailers");
        break;
      }
      default:
        break;  // PRIORITY, WINDOW_UPDATE, unknown types: nothing to do (RFC 9113 §4.1)
    }
  }
  auto status = header(*response_headers, ":status");
  if (status != "200") return host_error("HTTP status " + status.value_or("(none)"));
  // Trailers-Only replies carry grpc-status in the response headers.
  const auto& last = trailers ? *trailers : *response_headers;
  auto grpc_status = header(last, "grpc-status");
  if (!grpc_status) return bad_input("gRPC reply without grpc-status");
  if (*grpc_status != "0")
    return host_error("gRPC status " + grpc_message(*grpc_status) + ": " +
                      grpc_message(header(last, "grpc-message").value_or("")));
  return unframe(body);
}

Result<std::string> grpc_unary_call(const HostRoot& host, const GrpcCall& call) {
  auto sock = connect_unix_socket(host, call.socket);
  if (!sock) return sock.error();
  return grpc_exchange(sock->get(), call);
}

}  // namespace anygpu::ps
