// Pure parsers for the kernel's partition files: AMD compute/memory partition modes (amdgpu
// sysfs) and NVIDIA MIG capabilities (nvidia-caps procfs). None touches the machine (fuzzed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// current_compute_partition: "SPX", "DPX", "TPX", "QPX" or "CPX" (any case, one line).
Result<std::string> parse_amd_compute_mode(std::string_view text);
// available_compute_partition: "SPX, DPX, CPX"; every entry a known mode.
Result<std::vector<std::string>> parse_amd_compute_modes(std::string_view text);
// current_memory_partition: "NPS1", "NPS2", "NPS4" or "NPS8" (the kernel's table; its
// "UNKNOWN" is an error, never a mode).
Result<std::string> parse_amd_memory_mode(std::string_view text);
// Logical devices a compute mode makes: SPX 1, DPX 2, TPX 3, QPX 4; CPX one per XCC (nullopt).
std::optional<int> amd_partitions_in_mode(std::string_view mode);
// Memory partitions of "NPS<n>": n.
int amd_memory_partitions(std::string_view memory_mode);

// One MIG capability: a GPU instance (ci absent) or a compute instance of one.
struct MigCap {
  int gpu = 0;  // the GPU's device minor (/dev/nvidia<gpu>), not its index
  int gi = 0;
  std::optional<int> ci;
  int minor = 0;
  auto operator<=>(const MigCap&) const = default;
};
inline constexpr int kMigMaxGpus = 32, kMigMaxGis = 15, kMigMaxCis = 8;
// The minor nv-caps.c gives a capability: 3 + 135*gpu + 9*gi (+ 1 + ci).
int mig_cap_minor(int gpu, int gi, std::optional<int> ci);

// /proc/driver/nvidia-caps/mig-minors: "gpu<g>/gi<i>/access <minor>" and
// "gpu<g>/gi<i>/ci<c>/access <minor>" lines (config/monitor lines are skipped). Every minor
// must be the one the formula gives; an error names the line.
Result<std::vector<MigCap>> parse_mig_minors(std::string_view text);
// A capability `access` file: "DeviceFileMinor: N\nDeviceFileMode: N\nDeviceFileModify: N".
Result<int> parse_nv_cap_access_minor(std::string_view text);
// The major of a character device named `name` in /proc/devices ("Character devices:" part).
Result<int> parse_proc_devices_major(std::string_view text, std::string_view name);

}  // namespace anygpu
