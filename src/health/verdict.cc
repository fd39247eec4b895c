#include "health/verdict.h"

#include <algorithm>

namespace anygpu::health {

NodeVerdict node_verdict(const HealthReport& report, Severity at) {
  at = std::max(at, Severity::warning);
  NodeVerdict v;
  for (const auto& d : report.devices) {
    for (const auto& f : d.findings)
      if (f.severity >= at) v.culprits.push_back({f.code, d.pci_bus_id, f.severity});
    if (d.health() == Health::unknown) v.blind.push_back(d.pci_bus_id);
  }
  std::stable_sort(v.culprits.begin(), v.culprits.end(),
                   [](const Culprit& a, const Culprit& b) { return a.severity > b.severity; });
  return v;
}

}  // namespace anygpu::health
