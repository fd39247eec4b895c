// The slice of HTTP/2 (RFC 9113) and HPACK (RFC 7541) a unary gRPC call over a unix socket
// needs: frames in and out, and a header-block decoder with the static and dynamic tables and
// Huffman-coded strings (a server may use all three). Everything is bounded: a frame larger
// than the size we accept, an integer or string past its block, a table entry past the table
// size we advertised, is an error, never a read past the input.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace anygpu::ps::http2 {

enum FrameType : uint8_t {
  kData = 0,
  kHeaders = 1,
  kPriority = 2,
  kRstStream = 3,
  kSettings = 4,
  kPushPromise = 5,
  kPing = 6,
  kGoaway = 7,
  kWindowUpdate = 8,
  kContinuation = 9,
};
constexpr uint8_t kFlagEndStream = 0x1;
constexpr uint8_t kFlagAck = 0x1;
constexpr uint8_t kFlagEndHeaders = 0x4;
constexpr uint8_t kFlagPadded = 0x8;
constexpr uint8_t kFlagPriority = 0x20;
constexpr size_t kFrameHeaderBytes = 9;
constexpr size_t kDefaultMaxFrameBytes = 16384;  // SETTINGS_MAX_FRAME_SIZE's initial value
constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

struct Frame {
  uint8_t type = 0, flags = 0;
  uint32_t stream = 0;
  std::string payload;
};

std::string encode_frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload);

// One whole frame off the front of `buffer`; nullopt while its bytes have not all arrived. A
// length over `max_payload` is an error (the peer ignored our SETTINGS_MAX_FRAME_SIZE).
Result<std::optional<Frame>> take_frame(std::string& buffer,
                                        size_t max_payload = kDefaultMaxFrameBytes);

// A DATA or HEADERS payload without its padding (and HEADERS' priority fields).
Result<std::string_view> frame_content(const Frame& frame);

using Headers = std::vector<std::pair<std::string, std::string>>;

// Huffman-coded string (RFC 7541 §5.2, Appendix B): an EOS symbol, a code longer than 30 bits
// or padding that is not a prefix of EOS (all ones, under 8 bits) is an error.
Result<std::string> huffman_decode(std::string_view coded);

// A literal header field without indexing, new name, no Huffman (RFC 7541 §6.2.2).
std::string hpack_literal(std::string_view name, std::string_view value);

// Decodes header blocks in the order the connection carried them (the dynamic table is shared
// by every block of a connection).
class HpackDecoder {
 public:
  // `table_bytes`: the SETTINGS_HEADER_TABLE_SIZE we advertised (4096 unless changed);
  // `list_bytes`: the most a decoded block may hold (RFC 9113 §6.5.2 accounting).
  explicit HpackDecoder(size_t table_bytes = 4096, size_t list_bytes = 65536)
      : max_table_(table_bytes), table_limit_(table_bytes), max_list_(list_bytes) {}
  Result<Headers> decode(std::string_view block);

 private:
  Result<std::pair<std::string, std::string>> entry(uint64_t index) const;
  void insert(std::string name, std::string value);
  void evict();

  std::deque<std::pair<std::string, std::string>> dynamic_;  // newest first
  size_t table_size_ = 0;
  size_t max_table_;    // the ceiling we advertised
  size_t table_limit_;  // the size the encoder chose (≤ max_table_)
  size_t max_list_;
};

}  // namespace anygpu::ps::http2
