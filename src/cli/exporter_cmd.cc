// `anygpu exporter`: serve the background collector's latest sample to Prometheus over HTTP.
// Sampling runs on its own threads; the server thread only copies a rendered page, so a hung
// vendor library shows up as anygpu_backend_up 0 and ageing samples, never as a hung scrape.
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/seconds.h"
#include "exporter/health_monitor.h"
#include "exporter/listen_address.h"
#include "exporter/process_monitor.h"
#include "exporter/routes.h"
#include "exporter/server.h"
#include "health/health.h"
#include "health/health_client.h"
#include "metrics/collector.h"
#include "metrics/prometheus.h"
#include "probe/probe.h"
#include "ps/pod_resources.h"
#include "ps/processes.h"

namespace anygpu::cli {

namespace {

// The whole pod-resources call, in the process scan's thread.
constexpr std::chrono::milliseconds kPodResourcesDeadline{1000};

struct ExporterFlags {
  std::string listen{http::kDefaultListen};
  double interval_s = 1.0;
  size_t max_connections = 64;
  bool health = true;
  double health_interval_s = 10.0;
  std::string health_window = "15m";
  bool processes = false;
  double processes_interval_s = 10.0;
  std::string pod_resources{ps::kPodResourcesSocket};
};

// Discovery once, then `anygpu health` on every call (kernel-log records within the window).
std::unique_ptr<exporter::HealthMonitor> start_health(const HostOptions& host,
                                                      const ExporterFlags& f,
                                                      std::chrono::seconds window) {
  auto root = std::make_shared<HostRoot>(host);
  auto inventory = std::make_shared<Inventory>(probe(*root));
  exporter::HealthMonitorOptions o;
  o.interval = std::chrono::milliseconds(std::llround(f.health_interval_s * 1000));
  o.window = window;
  return std::make_unique<exporter::HealthMonitor>(
      [root, inventory](double since) {
        health::HealthOptions ho;
        ho.since_seconds = since;
        auto library = worker::read_library_health(*root, *inventory);  // a worker, deadline-bound
        ho.library = &library;
        return health::evaluate_health(*root, *inventory, ho);
      },
      o);
}

// Discovery once, then a /proc scan (and NVML's process list, in a worker) on every call, and
// the pods' names from the kubelet when a process is in one: all in the scan's thread, never
// on a scrape. A pod-resources failure is logged when it first differs from the last one.
std::unique_ptr<exporter::ProcessMonitor> start_processes(const HostOptions& host,
                                                          const ExporterFlags& f) {
  auto root = std::make_shared<HostRoot>(host);
  auto inventory = std::make_shared<Inventory>(probe(*root));
  return std::make_unique<exporter::ProcessMonitor>(
      // Called from the monitor's one thread: the lambda owns the last error it logged.
      [root, inventory, socket = f.pod_resources,
       last_error = std::optional<std::string>()]() mutable {
        auto scan = ps::scan_processes(*root, *inventory);
        auto library = worker::read_library_health(*root, *inventory);
        ps::add_library_processes(*root, library, scan);
        auto error =
            ps::name_pods(*root, *inventory, socket, kPodResourcesDeadline, scan.processes);
        if (error && error != last_error)
          std::fprintf(stderr, "anygpu exporter: warning: %s\n", error->c_str());
        last_error = std::move(error);
        return exporter::aggregate_processes(scan, *inventory);
      },
      std::chrono::milliseconds(std::llround(f.processes_interval_s * 1000)));
}

// SIGINT/SIGTERM are blocked in every thread (the collector's threads inherit the mask) and
// read from a signalfd by the server loop, so shutdown is ordinary control flow.
Result<int> shutdown_signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0)
    return internal_error("cannot block SIGINT/SIGTERM");
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) return internal_error("signalfd failed");
  return fd;
}

int serve(const GlobalOptions& g, const ExporterFlags& f) {
  auto host = g.host_options();
  if (!host) return fail(host.error());
  auto listen = http::parse_listen_address(f.listen);
  if (!listen) return fail(listen.error());
  std::chrono::seconds window{0};
  if (f.health) {
    auto w = health::parse_duration(f.health_window);
    if (!w || *w < 1)
      return fail(bad_input("--health-window " + f.health_window +
                            ": expected a duration from 1s to 36500d, such as 15m or 1h"));
    window = std::chrono::seconds(std::llround(*w));
  }
  auto signals = shutdown_signal_fd();
  if (!signals) return fail(signals.error());

  std::shared_ptr<MetricsCollector> collector;
  std::unique_ptr<exporter::HealthMonitor> health_monitor;
  std::unique_ptr<exporter::ProcessMonitor> process_monitor;
  exporter::MetricsPage page(
      [&collector] { return collector ? collector->snapshot() : nullptr; },
      [&health_monitor, &process_monitor](const MetricsSnapshot& s,
                                          std::chrono::system_clock::time_point now) {
        auto body = render_prometheus(s, now);
        // Already evaluated in the background: rendering is a few lines per device.
        if (health_monitor)
          if (auto h = health_monitor->latest()) body += render_health_prometheus(*h, s, now);
        // Scanned in the background too: totals per device and attribution, never per pid.
        if (process_monitor)
          if (auto p = process_monitor->latest()) body += render_processes_prometheus(*p, s, now);
        return body;
      });
  http::ServerOptions options;
  options.listen = *listen;
  options.max_connections = f.max_connections;
  // Bound before discovery, so a taken port fails at once.
  auto server = http::HttpServer::bind(
      options, [&page](const http::Request& r) { return exporter::route(r, page); });
  if (!server) return fail(server.error());

  CollectorOptions co;
  co.interval = std::chrono::milliseconds(std::llround(f.interval_s * 1000));
  co.call_timeout = host->library_timeout;
  auto started = start_collector(*host, co);
  if (!started) return fail(started.error());
  if (f.health) health_monitor = start_health(*host, f, window);
  if (f.processes) process_monitor = start_processes(*host, f);
  collector = std::move(*started);

  if (!g.quiet)
    std::fprintf(stderr, "anygpu: listening on http://%s (GET /metrics, /healthz)\n",
                 (*server)->address().str().c_str());
  int sfd = *signals;
  (*server)->run(std::span<const int>(&sfd, 1));
  collector->stop();
  if (health_monitor) health_monitor->stop();
  if (process_monitor) process_monitor->stop();
  ::close(sfd);
  if (g.verbose && !g.quiet) std::fprintf(stderr, "anygpu: exporter stopped\n");
  return kExitOk;
}

}  // namespace

Command exporter_command() {
  return {"exporter", "serve metrics to Prometheus over HTTP (/metrics, /healthz)",
          [](CLI::App& app) {
            auto f = std::make_shared<ExporterFlags>();
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
            return [f](const GlobalOptions& g) { return serve(g, *f); };
          }};
}

}  // namespace anygpu::cli
