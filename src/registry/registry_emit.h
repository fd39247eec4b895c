// Turns a validated registry into C++ source: static arrays the binary reads at no cost
// (parsing the YAML at start-up would cost milliseconds per run).
#pragma once

#include <string>

#include "registry/registry.h"

namespace anygpu {

std::string emit_registry_cpp(const Registry& registry);

}  // namespace anygpu
