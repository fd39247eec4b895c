// Placeholder registration for `anygpu top`; the metrics capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command top_command() {
  return {"top", "top (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("top: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
