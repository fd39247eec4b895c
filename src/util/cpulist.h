// The kernel's cpulist format ("0-55,112-167", also used for NUMA node lists).
#pragma once

#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// Largest CPU number accepted; the kernel's NR_CPUS tops out at 8192.
inline constexpr int kMaxCpu = 8191;

// Parses a cpulist into the sorted, de-duplicated list of numbers it names.
// An empty (or whitespace-only) list is valid and names nothing.
Result<std::vector<int>> parse_cpulist(std::string_view text);

// Formats numbers back into the compact cpulist form.
std::string format_cpulist(const std::vector<int>& cpus);

}  // namespace anygpu
