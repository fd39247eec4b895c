// `anygpu gather DIR`: capture this host for a bug report or a test fixture.
#include <cstdio>

#include "cli/command.h"
#include "gather/gather.h"

namespace anygpu::cli {

Command gather_command() {
  return {
      "gather", "copy what discovery reads into DIR (replay with --root DIR)", [](CLI::App& app) {
        auto dir = std::make_shared<std::string>();
        app.add_option("DIR", *dir, "destination (must not exist, or be empty)")->required();
        return [dir](const GlobalOptions& g) {
          auto opts = g.host_options();
          if (!opts) return fail(opts.error());
          HostRoot host(*opts);
          auto summary = gather_host(host, *dir);
          if (!summary) return fail(summary.error());
          if (!g.quiet)
            std::fprintf(stderr,
                         "anygpu: gathered %zu files, %zu symlinks, %zu directories into %s\n"
                         "anygpu: replay with: anygpu --root %s detect\n",
                         summary->files, summary->links, summary->dirs, dir->c_str(), dir->c_str());
          return kExitOk;
        };
      }};
}

}  // namespace anygpu::cli
