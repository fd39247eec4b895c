// `anygpu check [SPEC] [--python PATH]`: the runtime contract against this host.
#include <sys/stat.h>

#include "cli/command.h"
#include "contract/check.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {
constexpr const char* kDefaultSpec = "./runtime-spec.yaml";
}

Command check_command() {
  return {"check", "check the runtime contract (runtime-spec.yaml) against this host",
          [](CLI::App& app) {
            auto spec = std::make_shared<std::string>();
            auto python = std::make_shared<std::string>("python3");
            app.add_option("spec", *spec, "the contract (default ./runtime-spec.yaml)")
                ->type_name("SPEC");
            app.add_option("--python", *python,
                           "interpreter whose installed packages are checked (default python3)")
                ->type_name("PATH");
            return [spec, python](const GlobalOptions& g) {
              std::string path = spec->empty() ? kDefaultSpec : *spec;
              if (spec->empty()) {
                struct stat st {};
                if (::stat(path.c_str(), &st) != 0)
                  return fail(bad_input(
                      "no runtime-spec.yaml in the current directory; pass the contract's path: "
                      "anygpu check FILE (format: docs/check.md)"));
              }
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inv = discover(g, host);
              CheckOptions co;
              co.python = *python;
              auto verdict = check_contract_file(path, inv, co);
              if (!verdict) return fail(verdict.error());
              g.json ? print_json(g, render_check_json(*verdict))
                     : print_text(render_check_text(path, *verdict));
              return verdict->passed() ? kExitOk : kExitCheckFailed;
            };
          }};
}

}  // namespace anygpu::cli
