// Slurm's gres.conf Cores= takes logical core indices ("Core L#" in `lstopo -l`: cores
// numbered package by package, in the order of their first CPU), not the CPU (thread) ids
// of a device's local_cpulist. This maps one to the other from sysfs CPU topology.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "host/host_root.h"
#include "util/result.h"

namespace anygpu {

struct CoreMap {
  std::map<int, int> core_of_cpu;  // CPU id -> logical core index
};

// From <kCpuDevices>/cpuN/topology of every online CPU. An error when any of it is missing.
Result<CoreMap> read_core_map(const HostRoot& host);

// The cores holding the CPUs of `cpulist`, in cpulist form ("0-55"); absent when a CPU of
// the list is not in the map.
std::optional<std::string> cores_for_cpulist(const CoreMap& map, std::string_view cpulist);

}  // namespace anygpu
