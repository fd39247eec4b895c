// The protocol buffers wire format (protobuf.dev/programming-guides/encoding), read field by
// field: varints of at most 10 bytes, lengths that stay inside their message, no groups.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace anygpu::ps::protobuf {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

struct Field {
  uint32_t number = 0;
  WireType type = kVarint;
  uint64_t varint = 0;     // kVarint, kFixed64, kFixed32
  std::string_view bytes;  // kLength: a view into the message
};

class Reader {
 public:
  explicit Reader(std::string_view message) : in_(message) {}
  // False at the end of the message; an error for a malformed field (the reader stops there).
  Result<bool> next(Field& field);

 private:
  Result<uint64_t> varint();
  std::string_view in_;
  size_t pos_ = 0;
};

// Calls `visit(const Field&) -> Result<bool>` for each field of `message` in order; the first
// error, the wire format's or one `visit` returns, ends the walk and is the result.
template <class Visit>
Result<bool> for_each_field(std::string_view message, Visit visit) {
  Reader r(message);
  Field f;
  for (;;) {
    auto more = r.next(f);
    if (!more) return more.error();
    if (!*more) return true;
    if (auto v = visit(f); !v) return v.error();
  }
}

}  // namespace anygpu::ps::protobuf
