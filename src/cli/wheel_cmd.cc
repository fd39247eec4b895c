// Placeholder registration for `anygpu wheel`; the wheel capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command wheel_command() {
  return {"wheel", "wheel (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("wheel: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
