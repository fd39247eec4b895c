#include "ps/http2.h"

#include <algorithm>
#include <array>

namespace anygpu::ps::http2 {

namespace {

// RFC 7541 Appendix A.
constexpr std::array<std::pair<std::string_view, std::string_view>, 61> kStaticTable{{
    {":authority", ""},
    {":method", "GET"},
    {":method", "POST"},
    {":path", "/"},
    {":path", "/index.html"},
    {":scheme", "http"},
    {":scheme", "https"},
    {":status", "200"},
    {":status", "204"},
    {":status", "206"},
    {":status", "304"},
    {":status", "400"},
    {":status", "404"},
    {":status", "500"},
    {"accept-charset", ""},
    {"accept-encoding", "gzip, deflate"},
    {"accept-language", ""},
    {"accept-ranges", ""},
    {"accept", ""},
    {"access-control-allow-origin", ""},
    {"age", ""},
    {"allow", ""},
    {"authorization", ""},
    {"cache-control", ""},
    {"content-disposition", ""},
    {"content-encoding", ""},
    {"content-language", ""},
    {"content-length", ""},
    {"content-location", ""},
    {"content-range", ""},
    {"content-type", ""},
    {"cookie", ""},
    {"date", ""},
    {"etag", ""},
    {"expect", ""},
    {"expires", ""},
    {"from", ""},
    {"host", ""},
    {"if-match", ""},
    {"if-modified-since", ""},
    {"if-none-match", ""},
    {"if-range", ""},
    {"if-unmodified-since", ""},
    {"last-modified", ""},
    {"link", ""},
    {"location", ""},
    {"max-forwards", ""},
    {"proxy-authenticate", ""},
    {"proxy-authorization", ""},
    {"range", ""},
    {"referer", ""},
    {"refresh", ""},
    {"retry-after", ""},
    {"server", ""},
    {"set-cookie", ""},
    {"strict-transport-security", ""},
    {"transfer-encoding", ""},
    {"user-agent", ""},
    {"vary", ""},
    {"via", ""},
    {"www-authenticate", ""},
}};

struct Code {
  uint32_t bits;
  uint8_t length;
};

// RFC 7541 Appendix B: the code of every symbol, 256 being EOS.
constexpr std::array<Code, 257> kHuffman{{
    {0x1ff8, 13},     {0x7fffd8, 23},   {0xfffffe2, 28},  {0xfffffe3, 28},  {0xfffffe4, 28},
    {0xfffffe5, 28},  {0xfffffe6, 28},  {0xfffffe7, 28},  {0xfffffe8, 28},  {0xffffea, 24},
    {0x3ffffffc, 30}, {0xfffffe9, 28},  {0xfffffea, 28},  {0x3ffffffd, 30}, {0xfffffeb, 28},
    {0xfffffec, 28},  {0xfffffed, 28},  {0xfffffee, 28},  {0xfffffef, 28},  {0xffffff0, 28},
    {0xffffff1, 28},  {0xffffff2, 28},  {0x3ffffffe, 30}, {0xffffff3, 28},  {0xffffff4, 28},
    {0xffffff5, 28},  {0xffffff6, 28},  {0xffffff7, 28},  {0xffffff8, 28},  {0xffffff9, 28},
    {0xffffffa, 28},  {0xffffffb, 28},  {0x14, 6},        {0x3f8, 10},      {0x3f9, 10},
    {0xffa, 12},      {0x1ff9, 13},     {0x15, 6},        {0xf8, 8},        {0x7fa, 11},
    {0x3fa, 10},      {0x3fb, 10},      {0xf9, 8},        {0x7fb, 11},      {0xfa, 8},
    {0x16, 6},        {0x17, 6},        {0x18, 6},        {0x0, 5},         {0x1, 5},
    {0x2, 5},         {0x19, 6},        {0x1a, 6},        {0x1b, 6},        {0x1c, 6},
    {0x1d, 6},        {0x1e, 6},        {0x1f, 6},        {0x5c, 7},        {0xfb, 8},
    {0x7ffc, 15},     {0x20, 6},        {0xffb, 12},      {0x3fc, 10},      {0x1ffa, 13},
    {0x21, 6},        {0x5d, 7},        {0x5e, 7},        {0x5f, 7},        {0x60, 7},
    {0x61, 7},        {0x62, 7},        {0x63, 7},        {0x64, 7},        {0x65, 7},
    {0x66, 7},        {0x67, 7},        {0x68, 7},        {0x69, 7},        {0x6a, 7},
    {0x6b, 7},        {0x6c, 7},        {0x6d, 7},        {0x6e, 7},        {0x6f, 7},
    {0x70, 7},        {0x71, 7},        {0x72, 7},        {0xfc, 8},        {0x73, 7},
    {0xfd, 8},        {0x1ffb, 13},     {0x7fff0, 19},    {0x1ffc, 13},     {0x3ffc, 14},
    {0x22, 6},        {0x7ffd, 15},     {0x3, 5},         {0x23, 6},        {0x4, 5},
    {0x24, 6},        {0x5, 5},         {0x25, 6},        {0x26, 6},        {0x27, 6},
    {0x6, 5},         {0x74, 7},        {0x75, 7},        {0x28, 6},        {0x29, 6},
    {0x2a, 6},        {0x7, 5},         {0x2b, 6},        {0x76, 7},        {0x2c, 6},
    {0x8, 5},         {0x9, 5},         {0x2d, 6},        {0x77, 7},        {0x78, 7},
    {0x79, 7},        {0x7a, 7},        {0x7b, 7},        {0x7ffe, 15},     {0x7fc, 11},
    {0x3ffd, 14},     {0x1ffd, 13},     {0xffffffc, 28},  {0xfffe6, 20},    {0x3fffd2, 22},
    {0xfffe7, 20},    {0xfffe8, 20},    {0x3fffd3, 22},   {0x3fffd4, 22},   {0x3fffd5, 22},
    {0x7fffd9, 23},   {0x3fffd6, 22},   {0x7fffda, 23},   {0x7fffdb, 23},   {0x7fffdc, 23},
    {0x7fffdd, 23},   {0x7fffde, 23},   {0xffffeb, 24},   {0x7fffdf, 23},   {0xffffec, 24},
    {0xffffed, 24},   {0x3fffd7, 22},   {0x7fffe0, 23},   {0xffffee, 24},   {0x7fffe1, 23},
    {0x7fffe2, 23},   {0x7fffe3, 23},   {0x7fffe4, 23},   {0x1fffdc, 21},   {0x3fffd8, 22},
    {0x7fffe5, 23},   {0x3fffd9, 22},   {0x7fffe6, 23},   {0x7fffe7, 23},   {0xffffef, 24},
    {0x3fffda, 22},   {0x1fffdd, 21},   {0xfffe9, 20},    {0x3fffdb, 22},   {0x3fffdc, 22},
    {0x7fffe8, 23},   {0x7fffe9, 23},   {0x1fffde, 21},   {0x7fffea, 23},   {0x3fffdd, 22},
    {0x3fffde, 22},   {0xfffff0, 24},   {0x1fffdf, 21},   {0x3fffdf, 22},   {0x7fffeb, 23},
    {0x7fffec, 23},   {0x1fffe0, 21},   {0x1fffe1, 21},   {0x3fffe0, 22},   {0x1fffe2, 21},
    {0x7fffed, 23},   {0x3fffe1, 22},   {0x7fffee, 23},   {0x7fffef, 23},   {0xfffea, 20},
    {0x3fffe2, 22},   {0x3fffe3, 22},   {0x3fffe4, 22},   {0x7ffff0, 23},   {0x3fffe5, 22},
    {0x3fffe6, 22},   {0x7ffff1, 23},   {0x3ffffe0, 26},  {0x3ffffe1, 26},  {0xfffeb, 20},
    {0x7fff1, 19},    {0x3fffe7, 22},   {0x7ffff2, 23},   {0x3fffe8, 22},   {0x1ffffec, 25},
    {0x3ffffe2, 26},  {0x3ffffe3, 26},  {0x3ffffe4, 26},  {0x7ffffde, 27},  {0x7ffffdf, 27},
    {0x3ffffe5, 26},  {0xfffff1, 24},   {0x1ffffed, 25},  {0x7fff2, 19},    {0x1fffe3, 21},
    {0x3ffffe6, 26},  {0x7ffffe0, 27},  {0x7ffffe1, 27},  {0x3ffffe7, 26},  {0x7ffffe2, 27},
    {0xfffff2, 24},   {0x1fffe4, 21},   {0x1fffe5, 21},   {0x3ffffe8, 26},  {0x3ffffe9, 26},
    {0xffffffd, 28},  {0x7ffffe3, 27},  {0x7ffffe4, 27},  {0x7ffffe5, 27},  {0xfffec, 20},
    {0xfffff3, 24},   {0xfffed, 20},    {0x1fffe6, 21},   {0x3fffe9, 22},   {0x1fffe7, 21},
    {0x1fffe8, 21},   {0x7ffff3, 23},   {0x3fffea, 22},   {0x3fffeb, 22},   {0x1ffffee, 25},
    {0x1ffffef, 25},  {0xfffff4, 24},   {0xfffff5, 24},   {0x3ffffea, 26},  {0x7ffff4, 23},
    {0x3ffffeb, 26},  {0x7ffffe6, 27},  {0x3ffffec, 26},  {0x3ffffed, 26},  {0x7ffffe7, 27},
    {0x7ffffe8, 27},  {0x7ffffe9, 27},  {0x7ffffea, 27},  {0x7ffffeb, 27},  {0xffffffe, 28},
    {0x7ffffec, 27},  {0x7ffffed, 27},  {0x7ffffee, 27},  {0x7ffffef, 27},  {0x7fffff0, 27},
    {0x3ffffee, 26},  {0x3fffffff, 30},
}};

constexpr size_t kMaxCodeBits = 30;

// Codes grouped by length, sorted, for a bit-at-a-time canonical decode.
struct HuffmanIndex {
  std::array<std::vector<std::pair<uint32_t, uint16_t>>, kMaxCodeBits + 1> by_length;
  HuffmanIndex() {
    for (uint16_t sym = 0; sym < kHuffman.size(); ++sym)
      by_length[kHuffman[sym].length].emplace_back(kHuffman[sym].bits, sym);
    for (auto& v : by_length) std::sort(v.begin(), v.end());
  }
};

const HuffmanIndex& huffman_index() {
  static const HuffmanIndex index;
  return index;
}

Error hpack_error(std::string what) {
  return bad_input("HPACK: " + std::move(what));
}

// An N-bit-prefix integer (RFC 7541 §5.1), capped well below overflow.
Result<uint64_t> read_integer(std::string_view in, size_t& pos, int prefix_bits) {
  if (pos >= in.size()) return hpack_error("integer past the end of the block");
  uint64_t mask = (uint64_t{1} << prefix_bits) - 1;
  uint64_t value = static_cast<uint8_t>(in[pos++]) & mask;
  if (value < mask) return value;
  for (int shift = 0;; shift += 7) {
    if (pos >= in.size()) return hpack_error("integer past the end of the block");
    if (shift > 28) return hpack_error("integer too large");
    auto b = static_cast<uint8_t>(in[pos++]);
    value += uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) return value;
  }
}

Result<std::string> read_string(std::string_view in, size_t& pos, size_t limit) {
  if (pos >= in.size()) return hpack_error("string past the end of the block");
  bool huffman = static_cast<uint8_t>(in[pos]) & 0x80;
  auto length = read_integer(in, pos, 7);
  if (!length) return length.error();
  if (*length > in.size() - pos) return hpack_error("string longer than its block");
  if (*length > limit) return hpack_error("string longer than the header list may hold");
  auto raw = in.substr(pos, static_cast<size_t>(*length));
  pos += raw.size();
  if (!huffman) return std::string(raw);
  auto decoded = huffman_decode(raw);
  if (decoded && decoded->size() > limit)
    return hpack_error("string longer than the header list may hold");
  return decoded;
}

}  // namespace

std::string encode_frame(uint8_t type, uint8_t flags, uint32_t stream, std::string_view payload) {
  std::string out;
  out.reserve(kFrameHeaderBytes + payload.size());
  auto n = static_cast<uint32_t>(payload.size());
  out += static_cast<char>((n >> 16) & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>(type);
  out += static_cast<char>(flags);
  for (int shift : {24, 16, 8, 0}) out += static_cast<char>((stream >> shift) & 0xff);
  out += payload;
  return out;
}

Result<std::optional<Frame>> take_frame(std::string& buffer, size_t max_payload) {
  if (buffer.size() < kFrameHeaderBytes) return std::optional<Frame>{};
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(buffer[i])); };
  size_t length = (byte(0) << 16) | (byte(1) << 8) | byte(2);
  if (length > max_payload)
    return bad_input("HTTP/2 frame of " + std::to_string(length) + " bytes (at most " +
                     std::to_string(max_payload) + ")");
  if (buffer.size() < kFrameHeaderBytes + length) return std::optional<Frame>{};
  Frame f;
  f.type = static_cast<uint8_t>(byte(3));
  f.flags = static_cast<uint8_t>(byte(4));
  f.stream = ((byte(5) << 24) | (byte(6) << 16) | (byte(7) << 8) | byte(8)) & 0x7fffffffu;
  f.payload = buffer.substr(kFrameHeaderBytes, length);
  buffer.erase(0, kFrameHeaderBytes + length);
  return std::optional<Frame>(std::move(f));
}

Result<std::string_view> frame_content(const Frame& frame) {
  std::string_view p = frame.payload;
  size_t pad = 0;
  if (frame.flags & kFlagPadded) {
    if (p.empty()) return bad_input("HTTP/2 padded frame without a pad length");
    pad = static_cast<uint8_t>(p[0]);
    p.remove_prefix(1);
  }
  if (frame.type == kHeaders && (frame.flags & kFlagPriority)) {
    if (p.size() < 5) return bad_input("HTTP/2 HEADERS frame shorter than its priority fields");
    p.remove_prefix(5);
  }
  if (pad > p.size()) return bad_input("HTTP/2 padding longer than its frame");
  return p.substr(0, p.size() - pad);
}

Result<std::string> huffman_decode(std::string_view coded) {
  const auto& index = huffman_index();
  std::string out;
  uint32_t code = 0;
  size_t bits = 0;
  for (unsigned char c : coded) {
    for (int i = 7; i >= 0; --i) {
      code = (code << 1) | ((c >> i) & 1u);
      ++bits;
      if (bits > kMaxCodeBits) return hpack_error("Huffman code longer than 30 bits");
      const auto& codes = index.by_length[bits];
      auto it = std::lower_bound(codes.begin(), codes.end(), std::make_pair(code, uint16_t{0}));
      if (it == codes.end() || it->first != code) continue;
      if (it->second == 256) return hpack_error("Huffman EOS inside a string");
      out += static_cast<char>(it->second);
      code = 0;
      bits = 0;
    }
  }
  // Padding: the most significant bits of EOS (all ones), shorter than a byte.
  if (bits > 7 || code != (uint32_t{1} << bits) - 1) return hpack_error("bad Huffman padding");
  return out;
}

std::string hpack_literal(std::string_view name, std::string_view value) {
  auto integer = [](std::string& out, size_t v) {  // 7-bit prefix, Huffman bit clear
    if (v < 127) {
      out += static_cast<char>(v);
      return;
    }
    out += static_cast<char>(127);
    v -= 127;
    while (v >= 128) {
      out += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  };
  std::string out(1, '\0');
  integer(out, name.size());
  out += name;
  integer(out, value.size());
  out += value;
  return out;
}

Result<std::pair<std::string, std::string>> HpackDecoder::entry(uint64_t index) const {
  if (index == 0) return hpack_error("index 0");
  if (index <= kStaticTable.size()) {
    const auto& [n, v] = kStaticTable[index - 1];
    return std::pair<std::string, std::string>(std::string(n), std::string(v));
  }
  uint64_t d = index - kStaticTable.size() - 1;
  if (d >= dynamic_.size())
    return hpack_error("index " + std::to_string(index) + " past the dynamic table");
  return dynamic_[static_cast<size_t>(d)];
}

void HpackDecoder::evict() {
  while (table_size_ > table_limit_ && !dynamic_.empty()) {
    table_size_ -= dynamic_.back().first.size() + dynamic_.back().second.size() + 32;
    dynamic_.pop_back();
  }
}

void HpackDecoder::insert(std::string name, std::string value) {
  size_t size = name.size() + value.size() + 32;
  if (size > table_limit_) {  // RFC 7541 §4.4: an entry larger than the table empties it
    dynamic_.clear();
    table_size_ = 0;
    return;
  }
  table_size_ += size;
  dynamic_.emplace_front(std::move(name), std::move(value));
  evict();
}

Result<Headers> HpackDecoder::decode(std::string_view block) {
  Headers headers;
  size_t list_bytes = 0;
  size_t pos = 0;
  bool field_seen = false;
  while (pos < block.size()) {
    auto b = static_cast<uint8_t>(block[pos]);
    if ((b & 0xe0) == 0x20) {  // dynamic table size update, only before the first field
      if (field_seen) return hpack_error("table size update after a header field");
      auto size = read_integer(block, pos, 5);
      if (!size) return size.error();
      if (*size > max_table_) return hpack_error("table size update past the advertised size");
      table_limit_ = static_cast<size_t>(*size);
      evict();
      continue;
    }
    field_seen = true;
    std::pair<std::string, std::string> field;
    bool index_it = false;
    if (b & 0x80) {  // indexed field
      auto index = read_integer(block, pos, 7);
      if (!index) return index.error();
      auto e = entry(*index);
      if (!e) return e.error();
      field = std::move(*e);
    } else {
      index_it = b & 0x40;  // with incremental indexing; else without / never indexed
      auto index = read_integer(block, pos, index_it ? 6 : 4);
      if (!index) return index.error();
      size_t room = max_list_ - std::min(max_list_, list_bytes);
      if (*index) {
        auto e = entry(*index);
        if (!e) return e.error();
        field.first = std::move(e->first);
      } else {
        auto name = read_string(block, pos, room);
        if (!name) return name.error();
        field.first = std::move(*name);
      }
      auto value = read_string(block, pos, room);
      if (!value) return value.error();
      field.second = std::move(*value);
    }
    list_bytes += field.first.size() + field.second.size() + 32;
    if (list_bytes > max_list_) return hpack_error("header list larger than accepted");
    if (index_it) insert(field.first, field.second);
    headers.push_back(std::move(field));
  }
  return headers;
}

}  // namespace anygpu::ps::http2
