// Slurm's compressed per-node task counts (SLURM_TASKS_PER_NODE, SLURM_STEP_TASKS_PER_NODE):
// "2(x3),1" means three nodes with two tasks, then one node with one.
#pragma once

#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// One count per node, in node order. At most 64 Ki nodes (Slurm's own hostlist cap).
Result<std::vector<int>> parse_tasks_per_node(std::string_view text);

}  // namespace anygpu
