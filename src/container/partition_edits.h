// The device nodes one partition needs in a container: its own nodes, not its siblings'. The
// vendor's shared nodes, mounts and environment stay with container_edits() for the parent.
#pragma once

#include <string>
#include <vector>

#include "container/container_edits.h"

namespace anygpu {

struct PartitionNodes {
  ContainerEdits edits;
  // Nodes the partition needs that the host lacks and whose numbers are unknown: while any
  // is missing no container can use the partition.
  std::vector<std::string> missing;
};

// A node the host has is passed by path; one it lacks but whose numbers discovery read (MIG
// cap nodes before nvidia-modprobe has made them, facts F-6) is passed by type/major/minor so
// the runtime makes it. DRM nodes follow the vendor's `container.drm` rule, as for a device.
PartitionNodes partition_nodes(const HostRoot& host, const Vendor& vendor, const Partition& p);

}  // namespace anygpu
