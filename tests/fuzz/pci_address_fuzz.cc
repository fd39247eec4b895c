// PciAddress::parse: what parses formats back to a string that parses to the same address.
#include "fuzz_check.h"
#include "model/inventory.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto addr = PciAddress::parse(text);
  if (!addr) return 0;
  FUZZ_CHECK(addr->device <= 0x1f && addr->function <= 7);
  std::string s = addr->str();
  FUZZ_CHECK(s.size() >= 12 && s.size() <= 16);
  auto again = PciAddress::parse(s);
  FUZZ_CHECK(again && *again == *addr);
  FUZZ_CHECK(again->str() == s);
  // The text had the DDDD:BB:DD.F shape: three fields, the last with a dot.
  FUZZ_CHECK(text.size() >= 12 && text.size() <= 16);
  return 0;
}
