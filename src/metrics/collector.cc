// Placeholder until the metrics capability lands.
#include "metrics/collector.h"

namespace anygpu {
Result<std::unique_ptr<MetricsCollector>> start_collector(HostOptions, CollectorOptions) {
  return internal_error("metrics: not built yet");
}
Result<MetricsSnapshot> sample_once(HostOptions, CollectorOptions) {
  return internal_error("metrics: not built yet");
}
}  // namespace anygpu
