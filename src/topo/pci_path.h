// Where a PCI function sits: its resolved sysfs path split into the root complex and the chain
// of bridges down to the function ("/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

struct PciPath {
  std::string root_complex;        // "pci0000:17"
  std::vector<std::string> chain;  // "0000:17:01.0", …, the function itself last
};

// A canonical path under /sys/devices; anything else (a virtual device, a path that ends above
// or below a PCI function) is an error naming the path.
Result<PciPath> parse_pci_sysfs_path(std::string_view path);

}  // namespace anygpu
