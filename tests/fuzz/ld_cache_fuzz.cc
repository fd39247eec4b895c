// The ld.so.cache parser: any bytes end in entries or a bad_input error naming the file; no
// entry outnumbers what the file could hold; lookups on a parsed cache are safe.
#include "host/ld_cache.h"
#include "fuzz_check.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fuzz::as_text(data, size);
  auto r = parse_ld_cache(bytes, "/etc/ld.so.cache");
  if (!r) {
    FUZZ_CHECK(r.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(r.error().message.rfind("/etc/ld.so.cache: malformed ld.so.cache", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(r->format == "new" || r->format == "old" || r->format == "old+new");
  FUZZ_CHECK(r->entries.size() <= size / 12);
  for (const auto& e : r->entries) {
    FUZZ_CHECK(e.name.find('\0') == std::string::npos && e.name.size() < 4096);
    FUZZ_CHECK(e.path.find('\0') == std::string::npos && e.path.size() < 4096);
  }
  if (!r->entries.empty()) {
    const auto& first = r->entries.front();
    for (uint16_t machine : {3, 62, 183, 21, 0})
      if (auto* hit = ld_cache_lookup(*r, first.name, machine, machine != 3))
        FUZZ_CHECK(hit->name == first.name);
  }
  return 0;
}
