// `anygpu ps`: who holds the accelerators.
#include <chrono>
#include <cmath>
#include <thread>

#include "cli/command.h"
#include "probe/probe.h"
#include "ps/processes.h"
#include "ps/render.h"
#include "render/json_text.h"
#include "worker/health_client.h"

namespace anygpu::cli {

Command ps_command() {
  return {"ps",
          "list the processes holding accelerators, with memory and owner (container, pod, "
          "Slurm job)",
          [](CLI::App& app) {
            struct Flags {
              bool stale = false;
              double window = 1.0;
            };
            auto f = std::make_shared<Flags>();
            app.add_flag("--stale", f->stale,
                         "only holders of device memory whose engines stayed idle over --window");
            app.add_option("--window", f->window, "seconds between the two --stale samples")
                ->type_name("SECONDS")
                ->check(CLI::Range(0.0, 3600.0));
            return [f](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              if (!std::isfinite(f->window))
                return fail(bad_input("--window: expected a number of seconds"));
              HostRoot host(*opts);
              auto inv = probe(host);
              auto scan = ps::scan_processes(host, inv);
              // NVML's process list (in a worker): memory per process on NVIDIA, and holders
              // whose device nodes /proc does not show.
              auto library = worker::read_library_health(host, inv);
              ps::add_library_processes(host, library, scan);
              if (!g.quiet)
                for (const auto& w : library.warnings)
                  std::fprintf(stderr, "anygpu: warning: %s\n", w.c_str());
              auto shown = scan.processes;
              if (f->stale) {
                std::this_thread::sleep_for(std::chrono::duration<double>(f->window));
                auto later = ps::scan_processes(host, inv);
                shown = ps::stale_processes(scan, later);
              }
              if (g.json) {
                print(dump_json(ps::processes_to_json(shown, scan.hidden)));
              } else {
                print(ps::processes_to_text(shown, scan.hidden));
              }
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
