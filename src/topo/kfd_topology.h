// KFD topology links between devices: xGMI io_links/p2p_links of GPU nodes, mapped to devices by
// each node's domain and location_id (KFD node numbers do not follow PCI order).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "topo/kfd_link.h"
#include "topo/topology.h"

namespace anygpu {

struct KfdNodeFacts {
  uint64_t id = 0;
  // domain and location_id (bus << 8 | device << 3 | function) of a GPU node; none for a CPU.
  std::optional<PciAddress> gpu_address;
  std::vector<std::pair<std::string, KfdLink>> links;  // (file, link), io_links then p2p_links
};

// Validates and adds the xGMI links between devices of `t`, and on a partitioned device whose
// partitions KFD lists as nodes of their own, fills Topology::partitions and the links between
// them: a link that names a node that does not exist, comes from another node than its
// directory, has no link back or a different weight back is left out with a warning naming its
// file.
void add_kfd_links(const std::vector<KfdNodeFacts>& nodes, Topology& t);

// Reads /sys/class/kfd/kfd/topology/nodes and adds its links; a missing tree adds nothing.
void read_kfd_links(const HostRoot& host, Topology& t);

}  // namespace anygpu
