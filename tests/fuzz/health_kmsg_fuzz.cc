// Kernel log records and Xid lines: parsing never crashes; every record keeps only what its
// header declared, an attributed device is a canonical PCI address, and an Xid parsed from a
// message has a number and a bus id made of hex digits and separators.
#include <cctype>
#include <string>

#include "fuzz_check.h"
#include "health/kmsg.h"
#include "model/inventory.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto log = health::parse_kmsg(text);
  FUZZ_CHECK(log.malformed >= 0);
  for (const auto& r : log.records) {
    FUZZ_CHECK(r.priority >= 0 && r.priority <= 7);
    FUZZ_CHECK(r.message.find('\n') == std::string::npos);
    if (r.device) {
      auto a = PciAddress::parse(*r.device);
      FUZZ_CHECK(a && a->str() == *r.device);
    }
    if (auto x = health::parse_xid(r.message)) {
      FUZZ_CHECK(x->number >= 0 && !x->bus.empty());
      for (char c : x->bus)
        FUZZ_CHECK(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.');
    }
  }
  health::parse_xid(text);
  return 0;
}
