// A library's per-partition samples (keyed by MIG GPU and compute instance ids) onto the
// partitions discovery found, so `metrics` and the exporter name each one as `detect` does.
#pragma once

#include <string_view>
#include <vector>

#include "metrics/sample.h"
#include "model/inventory.h"

namespace anygpu {

// One row per MIG instance of `device` in the inventory's order, with its index, id and profile
// and the values `sampled` holds for its GI and CI (absent where it holds none, said in a
// warning). A sampled instance discovery did not find is left out, with a warning: discovery
// is what names partitions. A device without MIG partitions gets none.
void attach_partition_samples(DeviceSample& into, std::vector<PartitionSample>&& sampled,
                              const Device& device, std::string_view api);

}  // namespace anygpu
