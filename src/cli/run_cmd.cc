// Placeholder registration for `anygpu run`; the launch capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command run_command() {
  return {"run", "run (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("run: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
