// What the occupancy criteria judge (select/occupancy.h), read from the host: one metrics sample
// of the inventory's devices (the collector `anygpu metrics` uses) and one process scan (`anygpu
// ps`'s, with the vendor libraries' process lists). Reading them costs a sample and a /proc walk,
// so select_on_host() does it only for a config that has an occupancy criterion.
#pragma once

#include <cstdint>

#include "host/host_root.h"
#include "metrics/sample.h"
#include "model/inventory.h"
#include "ps/processes.h"
#include "registry/registry.h"
#include "select/occupancy.h"
#include "util/diagnostics.h"

namespace anygpu {

// Every unit's occupancy from one sample and one scan (pure: tests build both).
// - free memory: the sample's total less its used (the total from discovery where the sample
//   has none); utilisation: the sample's. Both per device: a partition has them unknown.
// - holders: the processes holding the unit's nodes, ended ones (zombies) left out; a partition
//   counts the processes on its own nodes and those on the device's nodes that hold no
//   partition of it (they may use any). Known where the vendor library listed the device's
//   processes, or where /proc was read whole (`every_process`: nullopt when /proc shows every
//   process, else why not; the scan's hidden processes and an unlisted /proc make it unknown too).
// `self` is this process's pid under the real root (it holds nothing, but is never counted), 0
// otherwise.
Occupancy occupancy_of(const Inventory& inventory, const MetricsSnapshot& sample,
                       const ps::ProcessScan& scan, const std::vector<std::string>& library_listed,
                       const std::optional<std::string>& every_process, int self = 0);

// Reads the sample and the scan from `host` (the scan first, before a library worker exists)
// and returns occupancy_of() them. A library's failure is a warning in `diagnostics`.
Occupancy read_occupancy(const HostRoot& host, const Inventory& inventory, uint32_t euid,
                         Diagnostics& diagnostics, const Registry& registry = Registry::builtin());

}  // namespace anygpu
