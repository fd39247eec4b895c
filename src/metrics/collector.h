// Background sampling: one worker per vendor backend on the interval, every vendor call under a
// deadline. snapshot() never blocks on a backend; a stuck one is reported down and its samples
// age.
#pragma once

#include <chrono>
#include <memory>

#include "host/host_root.h"
#include "metrics/sample.h"
#include "util/result.h"

namespace anygpu {

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

// Discovers devices once, then starts the workers; the first sample is taken before returning.
Result<std::unique_ptr<MetricsCollector>> start_collector(HostOptions host,
                                                          CollectorOptions options);

// One synchronous sample (for `anygpu metrics`).
Result<MetricsSnapshot> sample_once(HostOptions host, CollectorOptions options);

}  // namespace anygpu
