// Placeholder registration for `anygpu k8s`; the cluster capability replaces this file.
#include "cli/command.h"

namespace anygpu::cli {

Command k8s_command() {
  return {"k8s", "k8s (being built)", [](CLI::App&) {
            return [](const GlobalOptions&) {
              return fail(internal_error("k8s: not built yet"));
            };
          }};
}

}  // namespace anygpu::cli
