// Placeholder registration for `anygpu slurm`; the cluster capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command slurm_command() {
  return {"slurm", "slurm (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("slurm: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
