// Discovery: kernel interfaces first, vendor libraries second, into one Inventory snapshot;
// what it went on without (a malformed file, a failed library) is in Inventory::diagnostics.
#pragma once

#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

Inventory probe(const HostRoot& host, const Registry& registry = Registry::builtin());

}  // namespace anygpu
