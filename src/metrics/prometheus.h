// Prometheus text exposition format 0.0.4 for a snapshot, with HELP and TYPE lines.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "metrics/sample.h"

namespace anygpu {

// The pieces, for other families rendered beside these (the exporter's health series).
using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;
// vendor, gpu, pci_bus_id, and uuid and model when known: every GPU series carries these.
PrometheusLabels prometheus_gpu_labels(const DeviceSample& d);
// One "name{labels} value\n" line, label values escaped.
std::string prometheus_sample(std::string_view name, const PrometheusLabels& labels, double v);

std::string render_prometheus(const MetricsSnapshot& snapshot,
                              std::chrono::system_clock::time_point now);

}  // namespace anygpu
