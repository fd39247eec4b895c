// Intel Xe Link between Data Center GPU Max cards, from what Level Zero's fabric extension told
// the library worker per device (the devices it reaches, by PCI address, with the edge count),
// appended to a Topology.
#pragma once

#include "topo/topology.h"

namespace anygpu {

// Adds an `xelink` DeviceLink, its count the Xe Link edges, for every pair of Intel GPUs that
// Level Zero's fabric joins. A far end that is no Intel GPU of this host, the GPU itself, or a
// pair whose two ends disagree (one end silent about it, or other counts) is left out with a
// warning naming Level Zero and the GPU. Where there are two or more Max (xe-hpc) GPUs, those
// whose fabric could not be read get a warning saying why (one per reason). Returns whether
// Level Zero answered for every Max GPU (then nothing about Xe Link is left unread).
bool add_xe_links(Topology& t);

}  // namespace anygpu
