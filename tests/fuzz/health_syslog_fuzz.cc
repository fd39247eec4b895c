// The kernel log as syslog(2) READ_ALL gives it: parsing never crashes, every line is a record
// or counted malformed, a record keeps a priority 0-7, a one-line message and its line's
// number, and an attributed device is a canonical PCI address.
#include <string>

#include "fuzz_check.h"
#include "health/kmsg.h"
#include "model/inventory.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto log = health::parse_syslog_text(text);
  FUZZ_CHECK(log.malformed >= 0 && log.untimed >= 0);
  FUZZ_CHECK(static_cast<size_t>(log.untimed) <= log.records.size());
  uint64_t last = 0;
  for (const auto& r : log.records) {
    FUZZ_CHECK(r.priority >= 0 && r.priority <= 7);
    FUZZ_CHECK(r.message.find('\n') == std::string::npos);
    FUZZ_CHECK(r.sequence > last);  // line numbers only grow
    last = r.sequence;
    if (r.device) {
      auto a = PciAddress::parse(*r.device);
      FUZZ_CHECK(a && a->str() == *r.device);
    }
  }
  return 0;
}
