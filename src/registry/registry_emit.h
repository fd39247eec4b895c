// Turns a validated registry into C++ source: static arrays the binary reads at no cost
// (parsing the YAML at start-up would cost milliseconds per run).
#pragma once

#include <string>

#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

std::string emit_registry_cpp(const Registry& registry);

// The Python package's view of the registry (python/anygpu/_registry.py): each torch device
// type with the package that registers it and its distributed backend, the CPU fallback last.
// Vendors sharing a device type must agree on both; an error names the two that do not.
Result<std::string> emit_registry_python(const Registry& registry);

}  // namespace anygpu
