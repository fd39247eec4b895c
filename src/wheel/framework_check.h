// The installed framework build (torch wheel) against the host: vendor, CUDA vs driver, GPU
// arch vs the wheel's arch list. Read from package files; torch is never imported.
#pragma once

#include <string>
#include <vector>

#include "doctor/finding.h"
#include "host/host_root.h"
#include "model/inventory.h"

namespace anygpu {

// `python` is the interpreter whose site-packages are inspected.
std::vector<Finding> framework_build_findings(const HostRoot& host, const Inventory& inventory,
                                              const std::string& python);

}  // namespace anygpu
