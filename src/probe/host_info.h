#pragma once

#include "model/inventory.h"
#include "probe/context.h"

namespace anygpu {

// Hostname, kernel, OS, architecture, online CPUs and NUMA nodes.
HostInfo probe_host_info(const ProbeContext& ctx);

}  // namespace anygpu
