// Pure parsers for the kernel's partition files: AMD compute/memory partition modes (amdgpu
// sysfs), NVIDIA MIG capabilities (nvidia-caps procfs), SR-IOV virtual function counts, Intel
// tile directories and Ascend vNPU node names. None touches the machine (fuzzed).
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

// sriov_totalvfs / sriov_numvfs: one decimal count. The SR-IOV capability's TotalVFs and
// NumVFs registers are 16 bits wide (PCIe base specification, SR-IOV extended capability).
inline constexpr int kMaxSriovVfs = 65535;
Result<int> parse_sriov_count(std::string_view text);

// An Ascend vNPU node, /dev/vdavinci<vnpu id>. The driver numbers a vNPU 100 + 16 * <NPU's
// physical id> + <slot>, slot 0..7 on inference products and 0..15 on training ones (MindCluster
// docs, "Creating a vNPU", facts F-43).
struct VnpuId {
  int id = 0;    // what ASCEND_VISIBLE_DEVICES names and the node carries
  int npu = 0;   // the parent NPU's physical id (/dev/davinci<npu>)
  int slot = 0;  // its place among that NPU's vNPUs
  auto operator<=>(const VnpuId&) const = default;
};
inline constexpr int kVnpuBase = 100, kVnpuSlots = 16, kMaxNpuId = 1023;
// "vdavinci117" -> {117, 1, 1}; an error for any other name or an id below 100.
Result<VnpuId> parse_vnpu_node(std::string_view name);

// An Intel card's tiles from the names its driver lists in one directory (i915 `gt<N>` under
// the card, Xe `tile<N>` under the PCI device; other names are skipped): their numbers, which
// must be 0..n-1 with n at most kMaxIntelTiles (xe_device_types.h XE_MAX_TILES_PER_DEVICE: no
// Intel GPU has more; Max 1550: 2). One tile or none is an empty list (the card is the device).
inline constexpr int kMaxIntelTiles = 2;
Result<std::vector<int>> parse_tile_names(const std::vector<std::string>& names,
                                          std::string_view prefix);

}  // namespace anygpu
