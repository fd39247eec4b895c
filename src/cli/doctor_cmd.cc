// Placeholder registration for `anygpu doctor`; the doctor capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command doctor_command() {
  return {"doctor", "doctor (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("doctor: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
