#include "ps/protobuf_wire.h"

#include <string>

namespace anygpu::ps::protobuf {

namespace {
Error wire_error(std::string what) {
  return bad_input("protobuf: " + std::move(what));
}
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;
}  // namespace

Result<uint64_t> Reader::varint() {
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= in_.size()) return wire_error("varint past the end of the message");
    auto b = static_cast<uint8_t>(in_[pos_++]);
    if (i == 9 && b > 1) return wire_error("varint over 64 bits");
    value |= uint64_t{b & 0x7fu} << (7 * i);
    if (!(b & 0x80)) return value;
  }
  return wire_error("varint longer than 10 bytes");
}

Result<bool> Reader::next(Field& field) {
  if (pos_ >= in_.size()) return false;
  auto key = varint();
  if (!key) return key.error();
  uint64_t number = *key >> 3;
  if (number == 0 || number > kMaxFieldNumber) return wire_error("bad field number");
  field = Field{};
  field.number = static_cast<uint32_t>(number);
  auto fixed = [&](size_t n) -> Result<bool> {
    if (in_.size() - pos_ < n) return wire_error("fixed field past the end of the message");
    for (size_t i = 0; i < n; ++i)
      field.varint |= uint64_t{static_cast<uint8_t>(in_[pos_ + i])} << (8 * i);
    pos_ += n;
    return true;
  };
  switch (*key & 7) {
    case kVarint: {
      field.type = kVarint;
      auto v = varint();
      if (!v) return v.error();
      field.varint = *v;
      return true;
    }
    case kFixed64:
      field.type = kFixed64;
      return fixed(8);
    case kFixed32:
      field.type = kFixed32;
      return fixed(4);
    case kLength: {
      field.type = kLength;
      auto n = varint();
      if (!n) return n.error();
      if (*n > in_.size() - pos_) return wire_error("length past the end of the message");
      field.bytes = in_.substr(pos_, static_cast<size_t>(*n));
      pos_ += field.bytes.size();
      return true;
    }
    default:
      return wire_error("unsupported wire type " + std::to_string(*key & 7));
  }
}

}  // namespace anygpu::ps::protobuf
