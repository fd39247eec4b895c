// Placeholder registration for `anygpu metrics`; the metrics capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command metrics_command() {
  return {"metrics", "metrics (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("metrics: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
