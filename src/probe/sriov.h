// SR-IOV from the PCI core's sysfs: a virtual function names its physical function through its
// `physfn` link; a physical function counts its enabled VFs in `sriov_numvfs` (of
// `sriov_totalvfs`) and links each one as `virtfn<N>` (Linux
// Documentation/ABI/testing/sysfs-bus-pci, drivers/pci/iov.c).
#pragma once

#include <vector>

#include "probe/pci.h"

namespace anygpu {

// Sets `physfn` on each virtual function and `sriov` on each physical function with VFs
// enabled. A link or count that lies is a warning naming the file; the device then keeps the
// facts of a plain PCI function, never an invented relation.
void probe_sriov(const ProbeContext& ctx, std::vector<PciDevice>& found);

}  // namespace anygpu
