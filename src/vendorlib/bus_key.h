// A device's PCI address as vendor libraries report it (four integers, unchecked), the key the
// DCMI and Level Zero readers index their devices by, and its checked conversion.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "model/inventory.h"

namespace anygpu {

using BusKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;  // domain, bus, dev, fn

// Nothing when the numbers are not a PCI address: no device to name.
inline std::optional<PciAddress> pci_address_of(const BusKey& key) {
  auto [domain, bus, dev, fn] = key;
  if (bus > 0xff || dev > 0x1f || fn > 7) return std::nullopt;
  return PciAddress{domain, static_cast<uint8_t>(bus), static_cast<uint8_t>(dev),
                    static_cast<uint8_t>(fn)};
}

}  // namespace anygpu
