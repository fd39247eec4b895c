// The one name of a partition that locks, `ps` and selection share.
#pragma once

#include <string>

#include "model/inventory.h"

namespace anygpu {

// "<bus id>/<index>", whatever id the partition carries (a MIG UUID once NVML named it).
std::string partition_key(const Device& parent, const Partition& p);

}  // namespace anygpu
