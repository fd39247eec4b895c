// Discovery: kernel interfaces first, vendor libraries second, into one Inventory snapshot.
#pragma once

#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

Inventory probe(const HostRoot& host, const Registry& registry = Registry::builtin());

}  // namespace anygpu
