// Prometheus text exposition format 0.0.4 for a snapshot, with HELP and TYPE lines.
#pragma once

#include <chrono>
#include <string>

#include "metrics/sample.h"

namespace anygpu {

std::string render_prometheus(const MetricsSnapshot& snapshot,
                              std::chrono::system_clock::time_point now);

}  // namespace anygpu
