// `anygpu exporter`: its flags. What it serves and how is exporter/exporter.h.
#include <memory>

#include "cli/command.h"
#include "cli/seconds.h"
#include "cluster/gres.h"
#include "exporter/exporter.h"

namespace anygpu::cli {

Command exporter_command() {
  return {"exporter", "serve metrics to Prometheus over HTTP (/metrics, /healthz)",
          [](CLI::App& app) {
            auto f = std::make_shared<exporter::ExporterConfig>();
            app.add_option("--listen", f->listen,
                           "HOST:PORT to listen on (default 127.0.0.1:9400; 0.0.0.0:9400 or "
                           "[::]:9400 for every interface; port 0 = any free port)")
                ->type_name("ADDR");
            app.add_option("--interval", f->interval_s,
                           "seconds between background samples (default 1)")
                ->type_name("SECONDS")
                ->check(seconds_in(0.1, 3600.0));
            app.add_option("--max-connections", f->max_connections,
                           "open connections served at once (default 64)")
                ->type_name("N")
                ->check(CLI::Range(1, 65536));
            app.add_flag("!--no-health", f->health,
                         "do not serve the health series (anygpu_gpu_health, "
                         "anygpu_health_findings)");
            app.add_option("--health-interval", f->health_interval_s,
                           "seconds between background health evaluations (default 10)")
                ->type_name("SECONDS")
                ->check(seconds_in(1.0, 3600.0));
            app.add_option("--health-window", f->health_window,
                           "a finding keeps counting this long after it was last seen, and "
                           "kernel-log records older than this are ignored (default 15m)")
                ->type_name("DURATION");
            app.add_flag("--processes", f->processes,
                         "also serve the processes holding each device and their device memory "
                         "per pod, container and Slurm job (anygpu_processes, "
                         "anygpu_process_memory_bytes)");
            app.add_option("--processes-interval", f->processes_interval_s,
                           "seconds between background /proc scans for --processes (default 10)")
                ->type_name("SECONDS")
                ->check(seconds_in(1.0, 3600.0));
            app.add_option("--pod-resources", f->pod_resources,
                           "the kubelet's pod-resources socket, beneath --root, asked in the "
                           "--processes scan for the name and namespace of pods holding devices "
                           "(labels pod, namespace; \"\" not to ask)")
                ->type_name("SOCKET")
                ->capture_default_str();
            app.add_option("--max-job-series", f->max_job_series,
                           "(job, device) entries of the --processes job series kept at most "
                           "(default 1000; beyond it anygpu_job_series_dropped_total counts)")
                ->type_name("N")
                ->check(CLI::Range(1, 1000000));
            app.add_option("--journal-dir", f->journal_dir,
                           "where --processes keeps a journal per job for `anygpu report` "
                           "(default /var/lib/anygpu/jobs beneath --root; \"\" for none)")
                ->type_name("DIR");
            // SLURM_JOB_GPUS counts gres.conf lines: the ones `anygpu slurm gres` writes.
            f->slurm_gres_order = [](const Inventory& inventory) {
              std::vector<std::string> order;
              for (const auto& line : gres_lines(inventory, nullptr))
                order.push_back(line.device->pci.address.str());
              return order;
            };
            return [f](const GlobalOptions& g) {
              auto host = g.host_options();
              if (!host) return fail(host.error());
              f->host = *host;
              f->quiet = g.quiet;
              f->verbose = g.verbose;
              f->report = [&g](const Diagnostics& found) { report(g, found); };
              auto rc = exporter::run_exporter(*f);
              return rc ? *rc : fail(rc.error());
            };
          }};
}

}  // namespace anygpu::cli
