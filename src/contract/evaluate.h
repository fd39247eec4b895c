// The pure half of `anygpu check`: a parsed contract, the host's inventory and the Python
// environment's installed files in, one Verdict out. No I/O.
#pragma once

#include <optional>
#include <string>

#include "contract/check.h"
#include "contract/spec.h"
#include "model/inventory.h"
#include "pyenv/python_env.h"
#include "registry/registry.h"

namespace anygpu {

struct PythonFacts {
  std::string python = "python3";
  // The packages live in this container image (`run --container`): the checks that read an
  // interpreter's packages are skipped, the image is judged by its own check.
  std::string image;
  std::optional<PythonEnv> env;  // absent when it could not be read …
  std::string error;             // … and why
};

// Device checks are evaluated for each accelerator vendor on the host (a process never mixes
// vendors); the vendor with the fewest failures is the one reported.
Verdict evaluate_contract(const ContractSpec& spec, const Inventory& inventory,
                          const PythonFacts& python,
                          const Registry& registry = Registry::builtin());

}  // namespace anygpu
