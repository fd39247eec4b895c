// The registry a process runs with: the one compiled in (data/vendors.yaml and
// data/devices.yaml, validated at build time), or, when the environment variable
// ANYGPU_REGISTRY names a directory, the vendors.yaml and devices.yaml in it, validated by the
// same code the build runs. The choice holds for the whole process — CLI, C ABI, Python — and
// the workers it starts inherit the variable. A vendor can so be added, or a fact corrected,
// without a rebuild.
#pragma once

#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

inline constexpr const char* kRegistryEnv = "ANYGPU_REGISTRY";

// Reads the registry ANYGPU_REGISTRY names, once per process. True when it is in force, false
// when the compiled-in one is. A registry that cannot be read or is invalid is an error naming
// FILE:LINE:COLUMN, returned again on every call; entry points (the CLI, the C ABI) ask
// before anything else, so no command runs on a registry other than the one asked for.
Result<bool> prepare_registry();

// The registry compiled into this binary (defined by the generated registry_data.cc).
const Registry& compiled_registry();

}  // namespace anygpu
