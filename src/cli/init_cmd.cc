// `anygpu init [DIR] [--force]`: scaffold a vendor-agnostic experiment. Existing files are
// never overwritten without --force: then nothing is written and the exit status is 2.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "hostprep/scaffold.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {
struct InitFlags {
  std::string dir = ".";
  bool force = false;
};
}  // namespace

Command init_command() {
  return {"init", "scaffold a vendor-agnostic experiment (train.py, contract, Dockerfile, CI)",
          [](CLI::App& app) {
            auto f = std::make_shared<InitFlags>();
            app.add_option("dir", f->dir, "directory to create the files in (default .)")
                ->type_name("DIR");
            app.add_flag("--force", f->force, "overwrite files that already exist");
            return [f](const GlobalOptions& g) {
              auto r = scaffold_experiment(f->dir, f->force);
              if (!r) return fail(r.error());
              if (!r->written.empty() || r->existing.empty()) {
                if (g.json) {
                  nlohmann::ordered_json j;
                  j["schema"] = "anygpu.init/v1";
                  j["dir"] = f->dir;
                  j["written"] = r->written;
                  j["overwritten"] = r->existing;
                  print_json(g, j);
                } else if (!g.quiet) {
                  std::string out = cat({"anygpu init: ", f->dir, "\n"});
                  for (const auto& w : r->written) out += cat({"  wrote ", w, "\n"});
                  out +=
                      "next: anygpu wheel (the torch build for this host), anygpu check, "
                      "anygpu run -- python3 train.py";
                  print_text(out);
                }
                return kExitOk;
              }
              std::fprintf(stderr,
                           "anygpu: init: %s already has %s; nothing written (--force "
                           "overwrites)\n",
                           f->dir.c_str(), join(r->existing, ", ").c_str());
              return kExitUsage;
            };
          }};
}

}  // namespace anygpu::cli
