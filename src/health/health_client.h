// The parent's side of health through a worker: for every vendor of the inventory whose
// registry library answers health (NVML and those that speak it, DCMI), one worker (mode
// "health") under the library deadline. A worker that crashes, exits or hangs costs only the
// facts it had not sent yet; what went wrong is a warning.
#pragma once

#include "host/host_root.h"
#include "model/inventory.h"
#include "model/library_facts.h"
#include "registry/registry.h"

namespace anygpu::worker {

// Nothing is loaded with --no-libs, or for a library that is not on the host.
health::LibraryHealth read_library_health(const HostRoot& host, const Inventory& inventory,
                                          const Registry& registry = Registry::builtin());

}  // namespace anygpu::worker
