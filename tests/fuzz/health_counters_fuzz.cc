// AER counters, AMD RAS counts and bad-page lists, and the health rules table: never crash,
// an accepted AER file has at least one counter, and a rejection carries a message.
#include <string>

#include "fuzz_check.h"
#include "health/aer.h"
#include "health/ras.h"
#include "health/rules.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  if (auto aer = health::parse_aer_counters(text)) {
    FUZZ_CHECK(!aer->by_type.empty() || aer->total);
    aer->nonzero();
  } else {
    FUZZ_CHECK(!aer.error().message.empty());
  }
  if (auto ras = health::parse_ras_count(text); !ras) FUZZ_CHECK(!ras.error().message.empty());
  if (auto pages = health::parse_bad_pages(text); !pages)
    FUZZ_CHECK(pages.error().message.find("line ") == 0);
  if (auto rules = health::parse_health_rules(text, "f.yaml"); !rules)
    FUZZ_CHECK(rules.error().message.find("f.yaml") == 0);
  return 0;
}
