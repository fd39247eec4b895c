// `anygpu vendors`: the registry compiled into this binary, with the sources of each value.
#include "cli/command.h"
#include "registry/registry.h"
#include "render/inventory_json.h"
#include "render/inventory_text.h"

namespace anygpu::cli {

Command vendors_command() {
  return {"vendors", "print the vendor registry", [](CLI::App&) {
            return [](const GlobalOptions& g) {
              const auto& r = Registry::builtin();
              g.json ? print_json(g, registry_to_json(r)) : print_text(registry_to_text(r));
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
