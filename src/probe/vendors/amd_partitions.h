// AMD Instinct compute and memory partitions (MI300 class) from amdgpu sysfs and KFD.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "probe/pci.h"

namespace anygpu {

// A KFD topology node of a GPU (or of one partition of it).
struct KfdGpuNode {
  std::string path;  // its properties file, for messages
  uint64_t domain = 0, location_id = 0, gfx_target_version = 0;
  uint64_t render_minor = 0, local_mem_size = 0;
  uint64_t node_id = 0;  // the KFD node number (its directory name)
  // Its place among the host's KFD GPU nodes by node number: the logical id ROCr, and HIP after
  // it, enumerate it under (ROCr takes the kernel's order; F-33).
  int gpu_rank = 0;
};

// Render minor -> card node of the amdgpu_xcp platform devices (partitions 1..7 live there).
std::map<uint64_t, std::string> read_xcp_cards(const ProbeContext& ctx);

// Sets partitioning and partitions of `d` from its sysfs mode files and the KFD nodes of its
// bus/device. A file that contradicts the others is a warning naming it; the device then
// stays whole.
void probe_amd_partitions(const ProbeContext& ctx, PciDevice& d, const std::vector<KfdGpuNode>& kfd,
                          const std::map<uint64_t, std::string>& xcp_cards);

// CPX makes one partition per XCC: a device showing fewer than its same-model peers in CPX
// has lost one (F-30: the kernel skips an XCP node when DRM minors run out). Warns only.
void warn_missing_cpx_partitions(const ProbeContext& ctx, const std::vector<PciDevice*>& devices);

}  // namespace anygpu
