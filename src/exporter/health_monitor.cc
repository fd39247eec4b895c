#include "exporter/health_monitor.h"

#include "metrics/prometheus.h"

namespace anygpu::exporter {

HealthMonitor::HealthMonitor(HealthEvaluator evaluate, HealthMonitorOptions options)
    : evaluate_(std::move(evaluate)), options_(options), window_(options.window) {
  evaluate_once();
  worker_ = std::thread([this] { work(); });
}

HealthMonitor::~HealthMonitor() {
  stop();
}

std::shared_ptr<const HealthSeries> HealthMonitor::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

void HealthMonitor::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
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

void HealthMonitor::work() {
  auto next = std::chrono::steady_clock::now() + options_.interval;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (cv_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
    evaluate_once();
    next += options_.interval;
    if (auto now = std::chrono::steady_clock::now(); next < now) next = now + options_.interval;
  }
}

namespace {

PrometheusLabels device_labels(const MetricsSnapshot& snapshot, std::string_view bus,
                               std::string_view vendor, int index) {
  for (const auto& d : snapshot.devices)
    if (d.pci_bus_id == bus) return prometheus_gpu_labels(d);
  return {{"vendor", std::string(vendor)},
          {"gpu", std::to_string(index)},
          {"pci_bus_id", std::string(bus)}};
}

std::string family(std::string_view name, std::string_view type, std::string_view help,
                   const std::string& samples) {
  if (samples.empty()) return {};
  return std::string("# HELP ") + std::string(name) + " " + std::string(help) + "\n# TYPE " +
         std::string(name) + " " + std::string(type) + "\n" + samples;
}

}  // namespace

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
      family("anygpu_gpu_health", "gauge",
             "Device health from anygpu health: 0 ok, 1 warning, 2 critical.", health) +
      family("anygpu_health_findings", "gauge",
             "Distinct findings of this code and severity seen within the health window; "
             "device labels are absent for host findings.",
             findings);
  if (series.evaluated_at != std::chrono::system_clock::time_point{}) {
    out += family("anygpu_health_window_seconds", "gauge",
                  "How long a finding keeps counting after it was last seen, seconds.",
                  prometheus_sample("anygpu_health_window_seconds", {},
                                    static_cast<double>(series.window.count())));
    double age = std::chrono::duration<double>(now - series.evaluated_at).count();
    out += family("anygpu_health_age_seconds", "gauge",
                  "Seconds since health was last evaluated successfully.",
                  prometheus_sample("anygpu_health_age_seconds", {}, age < 0 ? 0 : age));
  }
  return out;
}

}  // namespace anygpu::exporter
