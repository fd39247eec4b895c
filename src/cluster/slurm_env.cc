// Placeholder until the cluster capability lands.
#include "cluster/slurm_env.h"

namespace anygpu {
Result<std::optional<SlurmContext>> slurm_context(const Environment&) {
  return internal_error("slurm_context: not built yet");
}
}  // namespace anygpu
