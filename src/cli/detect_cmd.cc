// `anygpu detect`: the inventory, human or anygpu.inventory/v1.
#include <cstdio>

#include "cli/command.h"
#include "render/inventory_json.h"
#include "render/inventory_text.h"

namespace anygpu::cli {

Command detect_command() {
  return {"detect", "list every accelerator of every vendor", [](CLI::App& app) {
            auto require_gpu = std::make_shared<bool>(false);
            app.add_flag("--require-gpu", *require_gpu, "exit 3 when no accelerator is found");
            return [require_gpu](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inv = discover(g, host);
              if (g.json) {
                print_json(g, inventory_to_json(inv));
              } else {
                print_text(inventory_to_text(inv));
              }
              if (g.verbose)
                for (const auto& l : inv.libraries)
                  std::fprintf(stderr, "anygpu: library %s %s: %s%s%s\n", l.vendor.c_str(),
                               l.api.c_str(), std::string(to_string(l.status)).c_str(),
                               l.path ? " " : "", l.path ? l.path->c_str() : "");
              if (*require_gpu && inv.devices.empty())
                return fail(host_error("no accelerator found (--require-gpu)"));
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
