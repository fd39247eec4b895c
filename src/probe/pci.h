// Generic PCI discovery: every function of an accepted class from a registry vendor becomes a
// Device with the facts every vendor shares (identity, link, NUMA, driver, power state, DRM).
#pragma once

#include <string>
#include <vector>

#include "model/inventory.h"
#include "probe/context.h"

namespace anygpu {

struct PciDevice {
  Device device;
  const Vendor* vendor = nullptr;
  std::string sysfs_dir;  // /sys/bus/pci/devices/<bus id>
};

// Devices in PCI bus order with per-vendor indices assigned.
std::vector<PciDevice> scan_pci(const ProbeContext& ctx);

// Reads the first version source of `vendor` that yields a value.
std::optional<std::string> read_driver_version(const ProbeContext& ctx, const Vendor& vendor,
                                               std::string_view driver);

}  // namespace anygpu
