// Ascend HCCS links between NPUs, from what DCMI told the library worker per NPU (the NPUs it
// reaches over HCCS, by PCI address), appended to a Topology.
#pragma once

#include "topo/topology.h"

namespace anygpu {

// Adds an `hccs` DeviceLink for every pair of NPUs DCMI says are joined by HCCS (directly or
// through an HCCS switch). DCMI names only the relation, not how many HCCS lanes, so the link
// has no count. A far end that is no NPU of this host, the NPU itself, or a pair whose two ends
// disagree is left out with a warning naming DCMI and the NPU; NPUs whose links DCMI could not
// give get a warning saying so (one per reason). Returns whether DCMI answered for every Ascend
// NPU (then nothing about HCCS is left unread).
bool add_hccs_links(Topology& t);

}  // namespace anygpu
