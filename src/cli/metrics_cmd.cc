// `anygpu metrics`: one sample of every device (table, JSON, CSV or Prometheus text), or a
// stream of them with --watch.
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/command.h"
#include "cli/seconds.h"
#include "metrics/backend.h"
#include "metrics/collector.h"
#include "metrics/prometheus.h"
#include "metrics/render.h"
#include "registry/registry.h"
#include "util/terminal_text.h"

namespace anygpu::cli {

namespace {

struct MetricsFlags {
  bool prometheus = false;
  bool csv = false;
  double watch = 0;
};

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
}

enum class Format { table, json, csv, prometheus };

// Sampling's warnings (a malformed hwmon file, a failed library call): JSON carries them in
// each device's "warnings"; the other formats have no place for them, so they go to stderr,
// each once however often it recurs.
void report_samples(const GlobalOptions& g, const MetricsSnapshot& s) {
  for (const auto& d : s.devices)
    for (const auto& w : d.warnings) report(g, Diagnostic::warning(d.pci_bus_id, w));
}

void emit(const GlobalOptions& g, const MetricsSnapshot& s, Format format, bool stream,
          bool first) {
  if (format != Format::json) report_samples(g, s);
  switch (format) {
    case Format::json:
      // In a stream: one compact document per line (JSON Lines).
      print_json(g, metrics_to_json(s), !stream);
      break;
    case Format::csv:
      if (first) std::fputs(metrics_csv_header().c_str(), stdout);
      std::fputs(metrics_csv_rows(s).c_str(), stdout);
      break;
    case Format::prometheus:
      if (!first) std::fputc('\n', stdout);
      std::fputs(render_prometheus(s, std::chrono::system_clock::now()).c_str(), stdout);
      break;
    case Format::table:
      if (stream) std::printf("%s%s\n", first ? "" : "\n", rfc3339(s.timestamp).c_str());
      std::fputs(terminal_text(metrics_to_table(s)).c_str(), stdout);
      break;
  }
  std::fflush(stdout);
}

int watch(const GlobalOptions& g, const HostOptions& host, CollectorOptions opts, Format format) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  auto collector = start_collector(discover_backends(g, host), opts);
  if (!collector) return fail(collector.error());
  auto next = std::chrono::steady_clock::now();
  for (bool first = true; !g_stop; first = false) {
    emit(g, *(*collector)->snapshot(), format, true, first);
    if (std::ferror(stdout)) break;  // nobody reads any more: reported on the way out
    next += opts.interval;
    while (!g_stop && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  (*collector)->stop();
  return kExitOk;
}

}  // namespace

std::vector<std::shared_ptr<MetricsBackend>> discover_backends(const GlobalOptions& g,
                                                               const HostOptions& host) {
  HostRoot root(host);
  return make_backends(root, discover(g, root), Registry::builtin());
}

Command metrics_command() {
  return {
      "metrics", "sample every device once (or --watch): utilization, memory, temperature, power",
      [](CLI::App& app) {
        auto f = std::make_shared<MetricsFlags>();
        auto* prom =
            app.add_flag("--prometheus", f->prometheus, "Prometheus text exposition format 0.0.4");
        auto* csv = app.add_flag("--csv", f->csv, "CSV with a header line");
        prom->excludes(csv);
        app.add_option("--watch", f->watch, "sample again every SECONDS until interrupted")
            ->type_name("SECONDS")
            ->check(seconds_in(0.1, 86400.0));
        return [f](const GlobalOptions& g) {
          if (g.json && (f->prometheus || f->csv))
            return fail(bad_input("--json, --prometheus and --csv exclude each other"));
          auto host = g.host_options();
          if (!host) return fail(host.error());
          Format format = g.json          ? Format::json
                          : f->csv        ? Format::csv
                          : f->prometheus ? Format::prometheus
                                          : Format::table;
          CollectorOptions opts;
          opts.call_timeout = host->library_timeout;
          if (f->watch > 0) {
            opts.interval = std::chrono::milliseconds(std::llround(f->watch * 1000));
            return watch(g, *host, opts, format);
          }
          emit(g, sample_once(discover_backends(g, *host), opts), format, false, true);
          return kExitOk;
        };
      }};
}

}  // namespace anygpu::cli
