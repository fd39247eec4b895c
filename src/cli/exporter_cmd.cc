// `anygpu exporter`: serve the background collector's latest sample to Prometheus over HTTP.
// Sampling runs on its own threads; the server thread only copies a rendered page, so a hung
// vendor library shows up as anygpu_backend_up 0 and ageing samples, never as a hung scrape.
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "exporter/listen_address.h"
#include "exporter/routes.h"
#include "exporter/server.h"
#include "metrics/collector.h"
#include "metrics/prometheus.h"

namespace anygpu::cli {

namespace {

struct ExporterFlags {
  std::string listen{http::kDefaultListen};
  double interval_s = 1.0;
  size_t max_connections = 64;
};

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
  auto signals = shutdown_signal_fd();
  if (!signals) return fail(signals.error());

  std::shared_ptr<MetricsCollector> collector;
  exporter::MetricsPage page(
      [&collector] { return collector ? collector->snapshot() : nullptr; },
      [](const MetricsSnapshot& s, std::chrono::system_clock::time_point now) {
        return render_prometheus(s, now);
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
  collector = std::move(*started);

  if (!g.quiet)
    std::fprintf(stderr, "anygpu: listening on http://%s (GET /metrics, /healthz)\n",
                 (*server)->address().str().c_str());
  int sfd = *signals;
  (*server)->run(std::span<const int>(&sfd, 1));
  collector->stop();
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
            return [f](const GlobalOptions& g) { return serve(g, *f); };
          }};
}

}  // namespace anygpu::cli
