// Placeholder registration for `anygpu host-init`; the hostprep capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command host_init_command() {
  return {"host-init", "host-init (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("host-init: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
