// The one rule for every command that would load a vendor library (detect, select, metrics,
// top, exporter, the C ABI): a vendor's management library is loaded only when at least one of
// its devices is awake and bound to a driver. Initialising NVML, ROCm SMI or Level Zero opens
// every device of the vendor and resumes a runtime-suspended GPU; a laptop whose only dGPU
// sleeps must stay asleep. (Samplers also skip suspended devices one by one.)
#pragma once

#include <vector>

#include "model/inventory.h"

namespace anygpu {

inline bool libraries_may_load(const std::vector<const Device*>& vendor_devices) {
  for (const auto* d : vendor_devices)
    if (d->driver && d->usable())
      return true;
  return false;
}

}  // namespace anygpu
