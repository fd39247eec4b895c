// Shared by the fuzz targets: an invariant check that stays on in release builds (assert()
// is compiled out under NDEBUG, which RelWithDebInfo sets) and the libFuzzer entry point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace anygpu::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// True when `s` is printable text without surrounding whitespace: what every parsed string
// value the probe reports must look like.
inline bool clean_value(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (c < 0x20 && c != '\t') return false;
  auto sp = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  return !sp(s.front()) && !sp(s.back());
}

}  // namespace anygpu::fuzz
