// Placeholder registration for `anygpu init`; the hostprep capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command init_command() {
  return {"init", "init (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("init: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
