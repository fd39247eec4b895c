// find_pci_device_name over arbitrary pci.ids text; the ids come from the first 4 bytes.
#include "fuzz_check.h"
#include "probe/pci_ids.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint16_t vendor = static_cast<uint16_t>(data[0] << 8 | data[1]);
  uint16_t device = static_cast<uint16_t>(data[2] << 8 | data[3]);
  auto text = fuzz::as_text(data + 4, size - 4);
  auto name = find_pci_device_name(text, vendor, device);
  if (!name) return 0;
  FUZZ_CHECK(fuzz::clean_value(*name));
  FUZZ_CHECK(name->find('\n') == std::string::npos);
  // The name is the rest of a "\t<device>  " line that appears in the text.
  std::string line = "\t" + hex(device, 4).substr(2) + "  ";
  FUZZ_CHECK(text.find(line) != std::string_view::npos);
  FUZZ_CHECK(text.find(*name) != std::string_view::npos);
  // And the vendor's "<vendor>  " line starts a line.
  std::string vline = hex(vendor, 4).substr(2) + "  ";
  FUZZ_CHECK(text.rfind(vline, 0) == 0 || text.find("\n" + vline) != std::string_view::npos);
  return 0;
}
