// `anygpu exporter` put together: the host is probed once, and that one inventory is what the
// collector samples, the health monitor evaluates and the process scan attributes, so every
// series speaks of the same devices. Sampling, health and scans run on their own threads; the
// server thread only copies a rendered page, so a hung vendor library shows up as
// anygpu_backend_up 0 and ageing samples, never as a hung scrape.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "exporter/listen_address.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "ps/pod_resources.h"
#include "util/diagnostics.h"
#include "util/result.h"

namespace anygpu::exporter {

// The command's flags, as given (checked by run_exporter).
struct ExporterConfig {
  HostOptions host;
  std::string listen{http::kDefaultListen};
  double interval_s = 1.0;
  size_t max_connections = 64;
  bool health = true;
  double health_interval_s = 10.0;
  std::string health_window = "15m";
  bool processes = false;
  double processes_interval_s = 10.0;
  std::string pod_resources{ps::kPodResourcesSocket};
  size_t max_job_series = 1000;  // (job, device) entries of the job series
  // Where the job journals go; absent: /var/lib/anygpu/jobs beneath the root; "": none kept.
  std::optional<std::string> journal_dir;
  // The device (PCI bus id) of each gres.conf GPU line `anygpu slurm gres` writes for the
  // inventory, in line order: what SLURM_JOB_GPUS indices name. Empty: no Slurm allocations.
  std::function<std::vector<std::string>(const Inventory&)> slurm_gres_order;
  bool quiet = false, verbose = false;
  DiagnosticsSink report;  // discovery's diagnostics, once, before serving
};

// Binds, probes, starts the background work and serves until SIGINT or SIGTERM (then
// kExitOk). A bad value, a taken port or a collector that cannot start is an error before
// anything is served.
Result<int> run_exporter(const ExporterConfig& config);

}  // namespace anygpu::exporter
