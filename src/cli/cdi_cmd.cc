// Placeholder registration for `anygpu cdi`; the cluster capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command cdi_command() {
  return {"cdi", "cdi (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("cdi: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
