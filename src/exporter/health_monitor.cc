#include "exporter/health_monitor.h"

#include <cstdio>
#include <tuple>

#include "metrics/prometheus.h"
#include "util/strings.h"

namespace anygpu::exporter {

namespace {

bool node_wide(const health::SourceReading& s, const health::HealthReport& report) {
  for (const auto& n : report.sources)
    if (n.source == s.source) return true;
  return false;
}

// "0000:18:00.0, 0000:2a:00.0 and 6 more"
std::string bus_list(const std::vector<std::string>& buses) {
  constexpr size_t kShown = 4;
  std::string out;
  for (size_t i = 0; i < buses.size() && i < kShown; ++i) out += cat({i ? ", " : "", buses[i]});
  if (buses.size() > kShown) out += cat({" and ", std::to_string(buses.size() - kShown), " more"});
  return out;
}

void log_to_stderr(const std::string& line) {
  std::fprintf(stderr, "anygpu exporter: health: %s\n", line.c_str());
}

}  // namespace

HealthMonitor::HealthMonitor(HealthEvaluator evaluate, HealthMonitorOptions options)
    : evaluate_(std::move(evaluate)),
      options_(std::move(options)),
      window_(options_.window),
      task_(options_.interval, [this] { evaluate_once(); }) {}

HealthMonitor::~HealthMonitor() = default;

std::shared_ptr<const HealthSeries> HealthMonitor::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

void HealthMonitor::stop() {
  task_.stop();
}

// One line per change and kind: the sources of several devices that changed alike are named
// together. The first evaluation says what is unread; a read source is said only when it
// recovers.
void HealthMonitor::log_source_changes(const health::HealthReport& report) {
  // (read, source, reason, detail) -> bus ids ("" for the node)
  std::map<std::tuple<bool, std::string, std::string, std::string>, std::vector<std::string>>
      changes;
  auto note = [&](const std::string& bus, const health::SourceReading& s) {
    auto key = std::pair{bus, s.source};
    auto it = last_sources_.find(key);
    bool changed = it == last_sources_.end()
                       ? !s.read
                       : it->second.read != s.read || (!s.read && it->second.reason != s.reason);
    if (changed) changes[{s.read, s.source, s.reason, s.read ? "" : s.detail}].push_back(bus);
    last_sources_[key] = s;
  };
  for (const auto& s : report.sources) note("", s);
  for (const auto& d : report.devices)
    for (const auto& s : d.sources)
      if (!node_wide(s, report)) note(d.pci_bus_id, s);
  std::function<void(const std::string&)> log = options_.log ? options_.log : log_to_stderr;
  for (const auto& [key, buses] : changes) {
    const auto& [read, source, reason, detail] = key;
    auto where = buses.front().empty()
                     ? std::string()
                     : cat({" for ", std::to_string(buses.size()), " device(s) ", bus_list(buses)});
    if (read)
      log(cat({"reading ", source, " again", where}));
    else
      log(cat({"cannot read ", source, where, ": ", reason, detail.empty() ? "" : " (", detail,
               detail.empty() ? "" : ")"}));
  }
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
  log_source_changes(*report);
  series->node_sources = report->sources;
  for (const auto& d : report->devices) {
    DeviceHealthState state{d.pci_bus_id, d.vendor, d.index, d.health(), {}};
    for (const auto& s : d.sources)
      if (!node_wide(s, *report)) state.sources.push_back(s);
    series->devices.push_back(std::move(state));
  }
  series->findings = window_.counts(now);
  series->window = options_.window;
  series->evaluated_at = std::chrono::system_clock::now();
  std::lock_guard lock(mu_);
  latest_ = std::move(series);
}

double health_series_value(health::Health h) {
  switch (h) {
    case health::Health::ok:
      return 0;
    case health::Health::warning:
      return 1;
    case health::Health::critical:
      return 2;
    case health::Health::unknown:
      return 3;
  }
  return 3;
}

std::string render_health_prometheus(const HealthSeries& series, const MetricsSnapshot& snapshot,
                                     std::chrono::system_clock::time_point now) {
  std::string health, findings, sources;
  for (const auto& s : series.node_sources)
    sources += prometheus_sample("anygpu_health_source_up", {{"source", s.source}}, s.read ? 1 : 0);
  for (const auto& d : series.devices) {
    auto labels = device_labels(snapshot, d.pci_bus_id, d.vendor, d.index);
    health += prometheus_sample("anygpu_gpu_health", labels, health_series_value(d.health));
    for (const auto& s : d.sources) {
      auto l = labels;
      l.emplace_back("source", s.source);
      sources += prometheus_sample("anygpu_health_source_up", l, s.read ? 1 : 0);
    }
  }
  for (const auto& c : series.findings) {
    PrometheusLabels l;
    if (!c.pci_bus_id.empty()) l = device_labels(snapshot, c.pci_bus_id, c.vendor, c.index);
    l.emplace_back("code", c.code);
    l.emplace_back("severity", std::string(health::severity_word(c.severity)));
    findings += prometheus_sample("anygpu_health_findings", l, static_cast<double>(c.findings));
  }
  std::string out =
      prometheus_family("anygpu_gpu_health", "gauge",
                        "Device health from anygpu health: 0 ok, 1 warning, 2 critical, 3 unknown "
                        "(no warning or critical finding, and a source it needs was not read).",
                        health) +
      prometheus_family(
          "anygpu_health_findings", "gauge",
          "Distinct findings of this code and severity seen within the health window; "
          "device labels are absent for host findings.",
          findings) +
      prometheus_family("anygpu_health_source_up", "gauge",
                        "1 when the last health evaluation read this source, 0 when it could not "
                        "(anygpu health names the reason); the node's kernel log has no device "
                        "labels.",
                        sources);
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
