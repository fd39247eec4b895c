// User-space stacks found on the host (ROCm, CANN, Level Zero, …) and the CUDA version the
// NVIDIA driver supports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/inventory.h"
#include "probe/context.h"
#include "util/version.h"

namespace anygpu {

std::vector<RuntimeComponent> probe_runtimes(const ProbeContext& ctx,
                                             const std::vector<Device>& devices);

// Highest CUDA version a Linux driver supports ("550.90.07" -> "12.4"): the built-in framework
// table's toolkit floors (data/wheels.yaml). Absent below the oldest entry or when unparsable.
std::optional<std::string> cuda_version_for_driver(std::string_view driver_version);


}  // namespace anygpu
