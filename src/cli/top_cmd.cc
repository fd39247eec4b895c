// `anygpu top`: its flags. The view, its loop and the terminal are metrics/top.h.
#include <memory>

#include "cli/command.h"
#include "cli/seconds.h"
#include "health/health_client.h"
#include "metrics/top.h"

namespace anygpu::cli {

Command top_command() {
  return {"top", "live view of every device (bars for utilization, memory, temperature, power)",
          [](CLI::App& app) {
            auto o = std::make_shared<TopOptions>();
            app.add_option("--interval", o->interval_seconds, "seconds between samples (default 1)")
                ->type_name("SECONDS")
                ->check(seconds_in(0.1, 3600.0));
            app.add_option("-n,--iterations", o->iterations,
                           "frames to draw before exiting (default: until q or Ctrl-C)")
                ->type_name("N")
                ->check(CLI::Range(0, 1000000));
            app.add_flag("!--no-processes", o->processes,
                         "do not list the processes holding the devices below them");
            return [o](const GlobalOptions& g) {
              auto host = g.host_options();
              if (!host) return fail(host.error());
              o->host = *host;
              o->library_health = [](const HostRoot& h, const Inventory& inventory) {
                return worker::read_library_health(h, inventory);
              };
              o->report = [&g](const Diagnostics& found) { report(g, found); };
              auto rc = run_top(*o);
              return rc ? *rc : fail(rc.error());
            };
          }};
}

}  // namespace anygpu::cli
