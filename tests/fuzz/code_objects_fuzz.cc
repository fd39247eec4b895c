// The GPU code-object scanner over any bytes as a shared library: it ends (no loop on a
// self-referencing container), its lists are sorted and unique, every sm number is one a fat
// binary entry may carry, every AMD target a gfx processor, and a scan is deterministic.
#include <algorithm>

#include "fuzz_check.h"
#include "image/code_objects.h"

using namespace anygpu;
using namespace anygpu::image;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fuzz::as_text(data, size);
  auto c = scan_code_objects_in(bytes);
  auto sorted_unique = [](const auto& v) {
    return std::is_sorted(v.begin(), v.end()) && std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  FUZZ_CHECK(sorted_unique(c.sass) && sorted_unique(c.ptx) && sorted_unique(c.gfx));
  for (int s : c.sass) FUZZ_CHECK(s >= 10 && s <= 255);
  for (int s : c.ptx) FUZZ_CHECK(s >= 10 && s <= 255);
  for (const auto& g : c.gfx) FUZZ_CHECK(g.rfind("gfx", 0) == 0 && g.size() <= 64);
  FUZZ_CHECK(c.unread_bundles >= 0);
  auto again = scan_code_objects_in(bytes);
  FUZZ_CHECK(again.sass == c.sass && again.ptx == c.ptx && again.gfx == c.gfx &&
             again.unread_bundles == c.unread_bundles);
  return 0;
}
