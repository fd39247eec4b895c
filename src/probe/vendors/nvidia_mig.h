// NVIDIA MIG instances from the driver's capability procfs, without NVML (facts §1.1): the
// live GPU and compute instances are the `access` files under
// /proc/driver/nvidia/capabilities/gpu<minor>/mig/; /proc/driver/nvidia-caps/mig-minors and
// the nv-caps formula check their minors. Profile, UUID and memory need NVML: absent here.
#pragma once

#include <vector>

#include "probe/pci.h"

namespace anygpu {

void probe_mig_partitions(const ProbeContext& ctx, std::vector<PciDevice*>& devices);

}  // namespace anygpu
