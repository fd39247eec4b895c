#include "exporter/background.h"

#include "util/strings.h"

namespace anygpu::exporter {

PeriodicTask::PeriodicTask(std::chrono::milliseconds interval, std::function<void()> task)
    : interval_(interval), task_(std::move(task)) {
  task_();
  thread_ = std::thread([this] { work(); });
}

PeriodicTask::~PeriodicTask() {
  stop();
}

void PeriodicTask::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicTask::work() {
  auto next = std::chrono::steady_clock::now() + interval_;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (cv_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
    task_();
    next += interval_;
    if (auto now = std::chrono::steady_clock::now(); next < now)
      next = now + interval_;  // fell behind
  }
}

PrometheusLabels device_labels(const MetricsSnapshot& snapshot, std::string_view bus,
                               std::string_view vendor, int index) {
  for (const auto& d : snapshot.devices)
    if (d.pci_bus_id == bus) return prometheus_gpu_labels(d);
  return {{"vendor", std::string(vendor)},
          {"gpu", std::to_string(index)},
          {"pci_bus_id", std::string(bus)}};
}

std::string prometheus_family(std::string_view name, std::string_view type, std::string_view help,
                              const std::string& samples) {
  if (samples.empty()) return {};
  return cat({"# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n", samples});
}

}  // namespace anygpu::exporter
