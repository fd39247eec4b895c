// parse_proc_stat: any bytes give nothing, or a process whose pid is positive, whose parent
// and group are not negative, and whose state is one letter.
#include <string>

#include "fuzz_check.h"
#include "host/process_tree.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // one read of the file
  auto st = parse_proc_stat(fuzz::as_text(data, size));
  if (!st) return 0;
  FUZZ_CHECK(st->pid > 0);
  FUZZ_CHECK(st->ppid >= 0);
  FUZZ_CHECK(st->pgid >= 0);
  FUZZ_CHECK((st->state >= 'A' && st->state <= 'Z') || (st->state >= 'a' && st->state <= 'z'));
  return 0;
}
