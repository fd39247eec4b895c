// Names from the pci.ids database (Debian's pci.ids / hwdata), read only when neither the
// driver, a vendor library nor the device table named a device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/host_root.h"

namespace anygpu {

// The device name listed under `vendor` in pci.ids text, e.g. "GH100 [H100 SXM5 80GB]".
std::optional<std::string> find_pci_device_name(std::string_view pci_ids, uint16_t vendor,
                                                uint16_t device);

std::optional<std::string> lookup_pci_name(const HostRoot& host, uint16_t vendor, uint16_t device);

}  // namespace anygpu
