// `anygpu health`: device findings from PCIe, RAS, thermal and kernel-log evidence.
#include "cli/command.h"
#include "health/health.h"
#include "health/health_client.h"
#include "health/render.h"
#include "util/strings.h"

namespace anygpu::cli {

Command health_command() {
  return {"health", "find failing devices: PCIe errors, fallen-off GPUs, Xid, RAS, ECC, throttling",
          [](CLI::App& app) {
            struct Flags {
              std::vector<std::string> devices;
              std::string since;
            };
            auto f = std::make_shared<Flags>();
            app.add_option("--device", f->devices,
                           "only these devices: bus id, VENDOR:INDEX or INDEX (repeatable, or "
                           "comma-separated)")
                ->delimiter(',')
                ->type_name("SEL");
            app.add_option("--since", f->since,
                           "only kernel-log events this recent (30s, 15m, 2h, 7d)")
                ->type_name("DURATION");
            return [f](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              health::HealthOptions ho;
              ho.devices = f->devices;
              if (!f->since.empty()) {
                auto s = health::parse_duration(f->since);
                if (!s) return fail(s.error());
                ho.since_seconds = *s;
              }
              HostRoot host(*opts);
              auto inv = discover(g, host);
              // NVML's ECC, row-remapping, retired-page and throttle facts, read in a worker.
              auto library = worker::read_library_health(host, inv);
              ho.library = &library;
              auto evaluated = health::evaluate_health(host, inv, ho);
              if (!evaluated) return fail(evaluated.error());
              // The library's warnings are in the report's already.
              report_warnings(g, evaluated->warnings);
              g.json ? print_json(g, health::health_to_json(*evaluated))
                     : print_text(health::health_to_text(*evaluated));
              return evaluated->any_critical() ? kExitCheckFailed : kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
