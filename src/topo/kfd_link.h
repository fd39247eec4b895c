// One KFD topology link (`nodes/N/io_links/M/properties`, `…/p2p_links/M/properties`).
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace anygpu {

// CRAT io_interface_type (linux drivers/gpu/drm/amd/amdkfd/kfd_crat.h); not the RSMI/AMDSMI
// enums, which number PCIe 1 and xGMI 2.
inline constexpr uint64_t kKfdLinkPcie = 2;
inline constexpr uint64_t kKfdLinkXgmi = 11;
// Real weights are tens: 15 per xGMI hop, 13/41 between partitions, 20 PCIe, 72 for an indirect
// link across sockets (kfd_crat.c). Zero or above this is a corrupt file, not a far link.
inline constexpr uint64_t kMaxKfdLinkWeight = 1000;

// xGMI weights between GPU nodes (kfd_crat.c, kfd_fill_gpu_xgmi_link_to_gpu): 15 per hop
// between whole GPUs (KFD_CRAT_XGMI_WEIGHT × hops); between partitions of one GPU 13
// (KFD_CRAT_INTRA_SOCKET_WEIGHT), of two GPUs 2×13+15 = 41, which is one hop too (facts F-54;
// the MI300X and MI308X CPX captures show exactly these two).
inline constexpr uint64_t kKfdXgmiHopWeight = 15;
inline constexpr uint64_t kKfdXgmiSameDeviceWeight = 13;
inline constexpr uint64_t kKfdXgmiPartitionPeerWeight = 41;
inline bool is_one_xgmi_hop(uint64_t weight) {
  return weight == kKfdXgmiHopWeight || weight == kKfdXgmiSameDeviceWeight ||
         weight == kKfdXgmiPartitionPeerWeight;
}

struct KfdLink {
  uint64_t type = 0;
  uint64_t node_from = 0;
  uint64_t node_to = 0;
  uint64_t weight = 0;
};

// Requires type, node_from, node_to and weight; a weight out of 1..kMaxKfdLinkWeight is an error.
Result<KfdLink> parse_kfd_link(std::string_view text);

}  // namespace anygpu
