// `anygpu ps`: who holds the accelerators.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "app/locked_select.h"
#include "cli/command.h"
#include "health/health_client.h"
#include "probe/probe.h"
#include "ps/pod_resources.h"
#include "ps/processes.h"
#include "ps/render.h"
#include "render/json_text.h"

namespace anygpu::cli {

Command ps_command() {
  return {
      "ps",
      "list the processes holding accelerators, with memory and owner (container, pod, "
      "Slurm job)",
      [](CLI::App& app) {
        struct Flags {
          bool stale = false;
          double window = 1.0;
          std::string pod_resources{ps::kPodResourcesSocket};
          double pod_resources_timeout = 1.0;
        };
        auto f = std::make_shared<Flags>();
        app.add_flag("--stale", f->stale,
                     "only holders of device memory whose engines stayed idle over --window");
        app.add_option("--window", f->window, "seconds between the two --stale samples")
            ->type_name("SECONDS")
            ->check(CLI::Range(0.0, 3600.0));
        app.add_option("--pod-resources", f->pod_resources,
                       "the kubelet's pod-resources socket, beneath --root, asked for the "
                       "name and namespace of pods holding devices (\"\" not to ask)")
            ->type_name("SOCKET")
            ->capture_default_str();
        app.add_option("--pod-resources-timeout", f->pod_resources_timeout,
                       "seconds the whole pod-resources call may take")
            ->type_name("SECONDS")
            ->check(CLI::Range(0.001, 60.0))
            ->capture_default_str();
        return [f](const GlobalOptions& g) {
          auto opts = g.host_options();
          if (!opts) return fail(opts.error());
          if (!std::isfinite(f->window))
            return fail(bad_input("--window: expected a number of seconds"));
          if (!std::isfinite(f->pod_resources_timeout))
            return fail(bad_input("--pod-resources-timeout: expected a number of seconds"));
          HostRoot host(*opts);
          auto inv = discover(g, host);
          auto scan = ps::scan_processes(host, inv);
          // NVML's process list (in a worker): memory per process on NVIDIA, and holders
          // whose device nodes /proc does not show.
          auto library = worker::read_library_health(host, inv);
          ps::add_library_processes(host, library, scan);
          report_warnings(g, library.warnings);
          auto shown = scan.processes;
          if (f->stale) {
            std::this_thread::sleep_for(std::chrono::duration<double>(f->window));
            auto later = ps::scan_processes(host, inv);
            shown = ps::stale_processes(scan, later);
          }
          // Pod names from the kubelet: a failure is a warning, the listing stands.
          auto deadline =
              std::chrono::milliseconds(static_cast<long long>(f->pod_resources_timeout * 1000));
          if (auto e = ps::name_pods(host, inv, f->pod_resources, deadline, shown))
            report_warnings(g, {*e});
          // Lock holders from the kernel's /proc/locks matched to the lock files' inodes, not
          // from the pid each holder writes into its file: a killed holder's record stays
          // behind, while the kernel lists exactly the locks held now, and finding out
          // takes no lock (which would make a concurrent run see a conflict).
          auto locks = lock_holders_now(host.is_real_root(), process_environment(), ::geteuid());
          if (!locks) report_warnings(g, {locks.error().message});
          ps::Locks shown_locks = locks ? *locks : ps::Locks();
          if (g.json) {
            print_json(g, ps::processes_to_json(shown, scan.hidden, shown_locks));
          } else {
            print_text(ps::processes_to_text(shown, scan.hidden, shown_locks));
          }
          return kExitOk;
        };
      }};
}

}  // namespace anygpu::cli
