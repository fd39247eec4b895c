// parse_cpulist / format_cpulist: results sorted, unique, within 0..kMaxCpu, and the
// formatted form names exactly the same set.
#include <string>

#include "fuzz_check.h"
#include "util/cpulist.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Production reads cpulists with read_value (64 KiB at most).
  if (size > 64 * 1024) return 0;
  auto text = fuzz::as_text(data, size);
  auto cpus = parse_cpulist(text);
  if (!cpus) {
    FUZZ_CHECK(!cpus.error().message.empty());
    return 0;
  }
  for (size_t i = 0; i < cpus->size(); ++i) {
    FUZZ_CHECK((*cpus)[i] >= 0 && (*cpus)[i] <= kMaxCpu);
    if (i) FUZZ_CHECK((*cpus)[i - 1] < (*cpus)[i]);
  }
  FUZZ_CHECK(cpus->size() <= static_cast<size_t>(kMaxCpu) + 1);
  std::string formatted = format_cpulist(*cpus);
  FUZZ_CHECK(formatted.empty() == cpus->empty());
  auto again = parse_cpulist(formatted);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *cpus);
  FUZZ_CHECK(format_cpulist(*again) == formatted);
  return 0;
}
