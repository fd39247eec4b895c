#include "exporter/health_monitor.h"

#include "metrics/prometheus.h"

namespace anygpu::exporter {

HealthMonitor::HealthMonitor(HealthEvaluator evaluate, HealthMonitorOptions options)
    : evaluate_(std::move(evaluate)),
      options_(options),
      window_(options.window),
      task_(options.interval, [this] { evaluate_once(); }) {}

HealthMonitor::~HealthMonitor() = default;

std::shared_ptr<const HealthSeries> HealthMonitor::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

void HealthMonitor::stop() {
  task_.stop();
}

void HealthMonitor::evaluate_once() {
  auto report = evaluate_(static_cast<double>(options_.window.count()));
  auto now = health::FindingWindow::Clock::now();
  auto series = std::make_shared<HealthSeries>();
  if (!report) {
    std::lock_guard lock(mu_);
    if (latest_) *series = *latest_;
    series->error = report.error().message;
    latest_ = std::move(series);
    return;
  }
  window_.observe(now, *report);
  for (const auto& d : report->devices)
    series->devices.push_back({d.pci_bus_id, d.vendor, d.index, d.health()});
  series->findings = window_.counts(now);
  series->window = options_.window;
  series->evaluated_at = std::chrono::system_clock::now();
  std::lock_guard lock(mu_);
  latest_ = std::move(series);
}


std::string render_health_prometheus(const HealthSeries& series, const MetricsSnapshot& snapshot,
                                     std::chrono::system_clock::time_point now) {
  std::string health, findings;
  for (const auto& d : series.devices)
    health += prometheus_sample("anygpu_gpu_health",
                                device_labels(snapshot, d.pci_bus_id, d.vendor, d.index),
                                static_cast<double>(d.health));
  for (const auto& c : series.findings) {
    PrometheusLabels l;
    if (!c.pci_bus_id.empty()) l = device_labels(snapshot, c.pci_bus_id, c.vendor, c.index);
    l.emplace_back("code", c.code);
    l.emplace_back("severity", std::string(health::to_string(c.severity)));
    findings += prometheus_sample("anygpu_health_findings", l, static_cast<double>(c.findings));
  }
  std::string out =
      prometheus_family("anygpu_gpu_health", "gauge",
                        "Device health from anygpu health: 0 ok, 1 warning, 2 critical.", health) +
      prometheus_family(
          "anygpu_health_findings", "gauge",
          "Distinct findings of this code and severity seen within the health window; "
          "device labels are absent for host findings.",
          findings);
  if (series.evaluated_at != std::chrono::system_clock::time_point{}) {
    out += prometheus_family("anygpu_health_window_seconds", "gauge",
                             "How long a finding keeps counting after it was last seen, seconds.",
                             prometheus_sample("anygpu_health_window_seconds", {},
                                               static_cast<double>(series.window.count())));
    double age = std::chrono::duration<double>(now - series.evaluated_at).count();
    out += prometheus_family("anygpu_health_age_seconds", "gauge",
                             "Seconds since health was last evaluated successfully.",
                             prometheus_sample("anygpu_health_age_seconds", {}, age < 0 ? 0 : age));
  }
  return out;
}

}  // namespace anygpu::exporter
