// The exporter's health series, evaluated in the background like the metrics: a thread runs
// `anygpu health` on its interval (kernel-log records limited to the window) and keeps the
// findings of the last window and the sources each device was read from, so a scrape only
// renders what is already computed. A source that becomes unreadable, or readable again, is
// logged once, when it changes.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exporter/background.h"
#include "health/report.h"
#include "health/window.h"
#include "metrics/sample.h"
#include "util/result.h"

namespace anygpu::exporter {

struct DeviceHealthState {
  std::string pci_bus_id, vendor;
  int index = 0;
  health::Health health = health::Health::ok;
  std::vector<health::SourceReading> sources;  // the device's own (the node's are apart)
};

struct HealthSeries {
  std::vector<DeviceHealthState> devices;
  std::vector<health::SourceReading> node_sources;  // the kernel log
  std::vector<health::WindowCount> findings;        // per device (or host) and code, in the window
  std::chrono::seconds window{0};
  std::chrono::system_clock::time_point evaluated_at{};
  std::optional<std::string> error;  // the last evaluation failed (the previous state is kept)
};

struct HealthMonitorOptions {
  std::chrono::milliseconds interval{10000};
  std::chrono::seconds window{900};
  // Where a source's change of state is said (one line each); stderr when unset.
  std::function<void(const std::string&)> log;
};

// One evaluation; `since` limits kernel-log records to the window.
using HealthEvaluator = std::function<Result<health::HealthReport>(double since_seconds)>;

class HealthMonitor {
 public:
  // Evaluates once before returning, then on the interval in its own thread.
  HealthMonitor(HealthEvaluator evaluate, HealthMonitorOptions options);
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  std::shared_ptr<const HealthSeries> latest() const;
  void stop();

 private:
  void evaluate_once();
  void log_source_changes(const health::HealthReport& report);

  HealthEvaluator evaluate_;
  HealthMonitorOptions options_;
  health::FindingWindow window_;  // touched by the task's thread only
  // Each source's last state by (bus id or "" for the node, source): the task's thread only.
  std::map<std::pair<std::string, std::string>, health::SourceReading> last_sources_;
  mutable std::mutex mu_;
  std::shared_ptr<const HealthSeries> latest_;
  PeriodicTask task_;  // last: starts once the state above exists, stops before it goes
};

// anygpu_gpu_health, anygpu_health_findings, anygpu_health_source_up,
// anygpu_health_window_seconds and anygpu_health_age_seconds. Devices carry the labels of the
// metrics snapshot's device with the same bus id (so the series join with the others), else
// vendor, gpu and pci_bus_id; a node-wide source (the kernel log) carries only `source`.
std::string render_health_prometheus(const HealthSeries& series, const MetricsSnapshot& snapshot,
                                     std::chrono::system_clock::time_point now);

// anygpu_gpu_health's value: 0 ok, 1 warning, 2 critical, 3 unknown.
double health_series_value(health::Health h);

}  // namespace anygpu::exporter
