// Background sampling: one worker per vendor backend on the interval, every vendor call under a
// deadline. snapshot() never blocks on a backend; a stuck one is reported down and its samples
// age.
//
// Use (an exporter, `anygpu top`), with the inventory the caller probed once and shares:
//   auto c = start_collector(host, inventory, {.interval = 5s, .call_timeout = 1s});
//   if (!c) return fail(c.error());
//   auto snap = (*c)->snapshot();          // any thread, any time: never blocks on a vendor
//   render_prometheus(*snap, std::chrono::system_clock::now());
//   (*c)->stop();                          // or let the unique_ptr go
// The devices are the inventory's, fixed at start. BackendStatus.last_success is the time of the
// data the snapshot carries for that backend's devices (sample age = now - last_success).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "host/host_root.h"
#include "metrics/sample.h"
#include "model/inventory.h"
#include "util/result.h"

namespace anygpu {

class MetricsBackend;

struct CollectorOptions {
  std::chrono::milliseconds interval{1000};
  std::chrono::milliseconds call_timeout{1000};
};

class MetricsCollector {
 public:
  virtual ~MetricsCollector() = default;
  // The latest complete sample of every backend (cheap: a shared pointer copy).
  virtual std::shared_ptr<const MetricsSnapshot> snapshot() const = 0;
  // Stops the workers; abandoned (hung) calls are left to finish on their own.
  virtual void stop() = 0;
};

// Starts the workers over the inventory's devices (a caller that also scans processes or
// evaluates health hands them the same inventory, so every series speaks of the same devices);
// the first sample is taken before returning.
Result<std::unique_ptr<MetricsCollector>> start_collector(const HostRoot& host,
                                                          const Inventory& inventory,
                                                          CollectorOptions options);
// The same after a discovery of its own (`anygpu metrics --watch`).
Result<std::unique_ptr<MetricsCollector>> start_collector(HostOptions host,
                                                          CollectorOptions options);

// One synchronous sample after a discovery of its own (`anygpu metrics`).
Result<MetricsSnapshot> sample_once(HostOptions host, CollectorOptions options);

// The same over backends already built (tests, embedders with their own discovery). The
// first round runs before start_collector returns; the workers take the following ones.
Result<std::unique_ptr<MetricsCollector>> start_collector(
    std::vector<std::shared_ptr<MetricsBackend>> backends, CollectorOptions options);
MetricsSnapshot sample_once(const std::vector<std::shared_ptr<MetricsBackend>>& backends,
                            CollectorOptions options);

}  // namespace anygpu
