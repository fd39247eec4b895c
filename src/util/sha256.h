// SHA-256 (FIPS 180-4), streamed: image blobs are named by it and checked against it. Where the
// CPU has the SHA extensions (x86 SHA-NI) they are used: layers are gigabytes, and the portable
// code hashes ~100 MB/s.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace anygpu {

class Sha256 {
 public:
  enum class Code { best, portable };  // portable: never the CPU's SHA instructions (tests)
  explicit Sha256(Code code = Code::best);
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // The digest as 64 lower-case hex digits; the object is spent afterwards.
  std::string hex();

 private:
  void blocks(const uint8_t* p, size_t count);
  std::array<uint32_t, 8> h_;
  bool hardware_ = false;
  std::array<uint8_t, 64> buf_{};
  size_t used_ = 0;
  uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace anygpu
