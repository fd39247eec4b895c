// NVLink links between devices, from what NVML told the library worker per device (each active
// link's far end by PCI address and type), appended to a Topology.
#pragma once

#include "topo/topology.h"

namespace anygpu {

// NVLink counts per pair are at most 18: NCCL caps a pair's count by the GPU's SM version (18
// from SM 9.0 on, fewer before; nccl src/graph/xml.cc), and no NVIDIA GPU has more than 18 links.
// A larger count is a corrupt answer, not a wider link.
inline constexpr int kMaxNvLinksPerPair = 18;

// Adds a `nvlink` DeviceLink with its count for every pair of devices joined by NVLink:
// - direct links: the links of `a` whose far end is `b`'s PCI address, which must equal `b`'s
//   count toward `a` when NVML answered for both;
// - links to NVSwitches: every GPU with links to a switch that another GPU also reaches is in
//   that switch's fabric (transitively), and every two GPUs of one fabric are joined by as many
//   links as the fewer of their switch links (`nvidia-smi topo -m` shows NV18 between any two
//   H100s of an HGX board, each with 18 links to its four NVSwitches). NVML's sentinel far end
//   ffff…:ff:ff.0 (GB200: the switch tray, outside this host's PCI) counts as one switch.
// What cannot be a link — a far end that is no device of this host, the device itself, counts
// that disagree between the two ends or exceed kMaxNvLinksPerPair — is left out with a warning
// naming NVML and the device; devices whose links NVML could not give get a warning saying so
// (one per reason).
void add_nvlinks(Topology& t);

}  // namespace anygpu
