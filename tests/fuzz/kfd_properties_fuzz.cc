// KFD topology node properties, and the gfx target decode of every value.
#include <string>

#include "fuzz_check.h"
#include "probe/sysfs_parse.h"

using namespace anygpu;

namespace {
void check_decode(uint64_t v) {
  auto gfx = decode_gfx_target_version(v);
  if (!gfx) {
    FUZZ_CHECK(!gfx.error().message.empty());
    return;
  }
  FUZZ_CHECK(v != 0 && v <= 999999);
  // "gfx" + decimal major (1..99) + one hex digit each for minor and stepping.
  const std::string& s = *gfx;
  FUZZ_CHECK(s.size() >= 6 && s.size() <= 7 && s.rfind("gfx", 0) == 0);
  unsigned major = static_cast<unsigned>(v / 10000 % 100);
  FUZZ_CHECK(s.substr(3, s.size() - 5) == std::to_string(major));
  auto hexdigit = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  FUZZ_CHECK(hexdigit(s[s.size() - 2]) && hexdigit(s[s.size() - 1]));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto props = parse_kfd_properties(fuzz::as_text(data, size));
  if (!props) {
    FUZZ_CHECK(!props.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!props->empty());
  std::string again;
  for (const auto& [key, value] : *props) {
    FUZZ_CHECK(!key.empty() && key.find(' ') == std::string::npos &&
               key.find('\n') == std::string::npos);
    check_decode(value);
    again += key + " " + std::to_string(value) + "\n";
  }
  // What was read writes back as the kernel's "key value" form and reads the same.
  auto reparsed = parse_kfd_properties(again);
  FUZZ_CHECK(reparsed.ok() && *reparsed == *props);
  // The decode's edges, whatever the input.
  if (size >= 8) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | data[i];
    check_decode(v);
    check_decode(v % 1000000);
  }
  return 0;
}
