// The installed framework build (torch wheel) against the host: vendor, CUDA vs driver, GPU
// arch vs the wheel's arch list. Read from package files; torch is never imported.
#pragma once

#include <string>
#include <vector>

#include "contract/python_env.h"
#include "doctor/finding.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "wheel/wheel_data.h"

namespace anygpu {

// `python` is the interpreter whose site-packages are inspected.
std::vector<Finding> framework_build_findings(const HostRoot& host, const Inventory& inventory,
                                              const std::string& python);

// The same comparison for an environment already read (tests build one from a directory).
std::vector<Finding> framework_build_findings(const PythonEnv& env, const Inventory& inventory,
                                              const WheelData& data);

}  // namespace anygpu
