// The table of environment variables (util/env_vars.h) as the C ABI serves it
// (anygpu_environment_json), with the checks util cannot make itself: torch device types (the
// registry) and Slurm's hostlists and task counts (cluster's parsers, the ones `anygpu run`
// uses). The Python package judges every variable it reads through this.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/env_vars.h"

namespace anygpu::capi {

// The anygpu.environment/v1 document: every row (or those in `names`), each with its value in
// `given` (absent: this process's environment) and the verdict on it. The registry in force
// must be usable (prepare_registry): it names the torch device types.
Result<nlohmann::ordered_json> environment_document(
    const std::optional<std::map<std::string, std::string>>& given,
    const std::optional<std::vector<std::string>>& names);

}  // namespace anygpu::capi
