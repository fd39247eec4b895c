#include "exporter/exporter.h"

#include <signal.h>
#include <sys/signalfd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>

#include "exporter/health_monitor.h"
#include "exporter/job_accounting.h"
#include "exporter/job_allocations.h"
#include "exporter/job_journal_store.h"
#include "exporter/process_monitor.h"
#include "exporter/routes.h"
#include "exporter/server.h"
#include "health/health.h"
#include "health/health_client.h"
#include "metrics/collector.h"
#include "metrics/prometheus.h"
#include "probe/probe.h"
#include "ps/processes.h"
#include "util/exit_codes.h"
#include "util/unique_fd.h"

namespace anygpu::exporter {

namespace {

// The whole pod-resources call, in the process scan's thread.
constexpr std::chrono::milliseconds kPodResourcesDeadline{1000};

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000));
}

// What every background task reads: one host tree, one discovery, never changed once made.
struct Discovery {
  std::shared_ptr<const HostRoot> host;
  std::shared_ptr<const Inventory> inventory;
};

// `anygpu health` on every call (kernel-log records within the window).
std::unique_ptr<HealthMonitor> start_health(const Discovery& d, const ExporterConfig& c,
                                            std::chrono::seconds window) {
  HealthMonitorOptions o;
  o.interval = millis(c.health_interval_s);
  o.window = window;
  return std::make_unique<HealthMonitor>(
      [d](double since) {
        health::HealthOptions ho;
        ho.since_seconds = since;
        // A worker, deadline-bound.
        auto library = worker::read_library_health(*d.host, *d.inventory);
        ho.library = &library;
        return health::evaluate_health(*d.host, *d.inventory, ho);
      },
      o);
}

// Each device's energy counter in the latest sample, where it has one.
std::map<std::string, double> device_energy(const std::shared_ptr<const MetricsSnapshot>& s) {
  std::map<std::string, double> out;
  if (s)
    for (const auto& d : s->devices)
      if (d.energy_joules) out.emplace(d.pci_bus_id, *d.energy_joules);
  return out;
}

// The job journals (--journal-dir), written from the process scan's thread; none when "".
std::shared_ptr<JobJournalStore> start_journal(const Discovery& d, const ExporterConfig& c) {
  auto dir = c.journal_dir.value_or(d.host->outside(kDefaultJournalDir));
  if (dir.empty()) return nullptr;
  JournalOptions o;
  o.dir = dir;
  // A scan that comes later than three intervals (and at least a minute) after the previous
  // one means the exporter or the job was away: that gap is not counted as the job's time.
  o.max_gap = std::max(std::chrono::seconds(60),
                       std::chrono::seconds(std::llround(3 * c.processes_interval_s)));
  return std::make_shared<JobJournalStore>(o, [](const std::string& w) {
    std::fprintf(stderr, "anygpu exporter: warning: %s\n", w.c_str());
  });
}

// A /proc scan (and NVML's process list, in a worker) on every call, and the pods' names from
// the kubelet when a process is in one: all in the scan's thread, never on a scrape. A
// pod-resources failure is logged when it first differs from the last one.
// The same thread keeps the per-job accounts: each scan is folded in with the device energy
// counters of the latest metrics sample and the allocations read from the jobs' processes.
std::unique_ptr<ProcessMonitor> start_processes(const Discovery& d, const ExporterConfig& c,
                                                const MetricsCollector& collector,
                                                std::shared_ptr<JobJournalStore> journal) {
  JobAccountingOptions jo;
  jo.max_series = c.max_job_series;
  auto accountant = std::make_shared<JobAccountant>(*d.inventory, jo);
  auto allocations = std::make_shared<SlurmAllocations>(
      c.slurm_gres_order ? c.slurm_gres_order(*d.inventory) : std::vector<std::string>{});
  return std::make_unique<ProcessMonitor>(
      // Called from the monitor's one thread: the lambda owns the last error it logged.
      [d, socket = c.pod_resources, last_error = std::optional<std::string>(), accountant,
       allocations, journal, &collector]() mutable {
        const auto& host = *d.host;
        const auto& inventory = *d.inventory;
        auto scan = ps::scan_processes(host, inventory);
        auto library = worker::read_library_health(host, inventory);
        ps::add_library_processes(host, library, scan);
        auto error = ps::name_pods(host, inventory, socket, kPodResourcesDeadline, scan.processes);
        if (error && error != last_error)
          std::fprintf(stderr, "anygpu exporter: warning: %s\n", error->c_str());
        last_error = std::move(error);
        auto series = aggregate_processes(scan, inventory);
        JobScan js{scan, device_energy(collector.snapshot()), allocations->read(host, scan),
                   std::chrono::steady_clock::now()};
        series.jobs = accountant->update(js);
        if (journal) journal->update(*series.jobs, std::chrono::system_clock::now());
        return series;
      },
      millis(c.processes_interval_s));
}

// SIGINT/SIGTERM are blocked in every thread (the background threads inherit the mask) and
// read from a signalfd by the server loop, so shutdown is ordinary control flow.
Result<UniqueFd> shutdown_signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0)
    return internal_error("cannot block SIGINT/SIGTERM");
  UniqueFd fd(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!fd) return internal_error("signalfd failed");
  return fd;
}

Result<std::chrono::seconds> health_window(const ExporterConfig& c) {
  if (!c.health) return std::chrono::seconds{0};
  auto w = health::parse_duration(c.health_window);
  if (!w || *w < 1)
    return bad_input("--health-window " + c.health_window +
                     ": expected a duration from 1s to 36500d, such as 15m or 1h");
  return std::chrono::seconds(std::llround(*w));
}

// The background work, started after the port is bound; /metrics renders what it last made.
class Background {
 public:
  std::shared_ptr<const MetricsSnapshot> metrics() const {
    return collector_ ? collector_->snapshot() : nullptr;
  }

  std::string render(const MetricsSnapshot& s, std::chrono::system_clock::time_point now) const {
    auto body = render_prometheus(s, now);
    // Already evaluated in the background: rendering is a few lines per device.
    if (health_)
      if (auto h = health_->latest()) body += render_health_prometheus(*h, s, now);
    // Scanned in the background too: totals per device and attribution, never per pid.
    if (processes_)
      if (auto p = processes_->latest()) body += render_processes_prometheus(*p, s, now);
    return body;
  }

  Result<bool> start(const ExporterConfig& c, std::chrono::seconds window) {
    auto host = std::make_shared<const HostRoot>(c.host);
    Discovery d{host, std::make_shared<const Inventory>(probe(*host))};
    if (c.report) c.report(d.inventory->diagnostics);
    CollectorOptions co;
    co.interval = millis(c.interval_s);
    co.call_timeout = c.host.library_timeout;
    auto collector = start_collector(*d.host, *d.inventory, co);
    if (!collector) return collector.error();
    if (c.health) health_ = start_health(d, c, window);
    if (c.processes) {
      journal_ = start_journal(d, c);
      processes_ = start_processes(d, c, **collector, journal_);
    }
    collector_ = std::move(*collector);  // last: the page serves once every series is there
    return true;
  }

  void stop() {
    if (collector_) collector_->stop();
    if (health_) health_->stop();
    if (processes_) processes_->stop();
    // The scan thread has stopped: what it accounted since the last write goes out now.
    if (journal_) journal_->flush(std::chrono::system_clock::now());
  }

 private:
  std::unique_ptr<MetricsCollector> collector_;
  std::unique_ptr<HealthMonitor> health_;
  std::shared_ptr<JobJournalStore> journal_;
  std::unique_ptr<ProcessMonitor> processes_;
};

}  // namespace

Result<int> run_exporter(const ExporterConfig& c) {
  auto listen = http::parse_listen_address(c.listen);
  if (!listen) return listen.error();
  auto window = health_window(c);
  if (!window) return window.error();
  auto signals = shutdown_signal_fd();
  if (!signals) return signals.error();

  Background background;
  MetricsPage page(
      [&background] { return background.metrics(); },
      [&background](const MetricsSnapshot& s, auto now) { return background.render(s, now); });
  http::ServerOptions options;
  options.listen = *listen;
  options.max_connections = c.max_connections;
  // Bound before discovery, so a taken port fails at once.
  auto server =
      http::HttpServer::bind(options, [&page](const http::Request& r) { return route(r, page); });
  if (!server) return server.error();
  if (auto started = background.start(c, *window); !started) return started.error();

  if (!c.quiet)
    std::fprintf(stderr, "anygpu: listening on http://%s (GET /metrics, /healthz)\n",
                 (*server)->address().str().c_str());
  int sfd = signals->get();
  (*server)->run(std::span<const int>(&sfd, 1));
  background.stop();
  if (c.verbose && !c.quiet) std::fprintf(stderr, "anygpu: exporter stopped\n");
  return kExitOk;
}

}  // namespace anygpu::exporter
