// Placeholder registration for `anygpu exporter`; the exporter capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command exporter_command() {
  return {"exporter", "exporter (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("exporter: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
