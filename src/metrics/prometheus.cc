// Placeholder until the metrics capability lands.
#include "metrics/prometheus.h"

namespace anygpu {
std::string render_prometheus(const MetricsSnapshot&, std::chrono::system_clock::time_point) {
  return {};
}
}  // namespace anygpu
