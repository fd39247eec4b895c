// A PCI function's resolved sysfs path, split into its root complex and chain of functions.
#include <string>

#include "fuzz_check.h"
#include "model/inventory.h"
#include "topo/pci_path.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto path = parse_pci_sysfs_path(fuzz::as_text(data, size));
  if (!path) {
    FUZZ_CHECK(!path.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!path->chain.empty() && path->root_complex.rfind("pci", 0) == 0);
  // Every element is a PCI address in the kernel's own spelling; joined back, the same path.
  std::string again = "/sys/devices/" + path->root_complex;
  for (const auto& f : path->chain) {
    auto a = PciAddress::parse(f);
    FUZZ_CHECK(a.has_value() && a->str() == f);
    again += "/" + f;
  }
  FUZZ_CHECK(again == std::string(fuzz::as_text(data, size)));
  return 0;
}
