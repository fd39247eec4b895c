// What the exporter's background series (health, processes) share: a task run once up front
// and then on an interval in its own thread, so a scrape only reads what is already computed,
// and the Prometheus text those series are rendered into.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "metrics/prometheus.h"
#include "metrics/sample.h"

namespace anygpu::exporter {

class PeriodicTask {
 public:
  // Runs `task` once before returning, then every `interval` (never piling up behind a slow
  // run) until stop().
  PeriodicTask(std::chrono::milliseconds interval, std::function<void()> task);
  ~PeriodicTask();
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  void stop();  // returns once the thread has ended; a run in progress finishes first

 private:
  void work();

  std::chrono::milliseconds interval_;
  std::function<void()> task_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

// The labels of the snapshot's device with bus id `bus` (so the series join with the metrics),
// else vendor, gpu and pci_bus_id.
PrometheusLabels device_labels(const MetricsSnapshot& snapshot, std::string_view bus,
                               std::string_view vendor, int index);

// "# HELP" and "# TYPE" lines before `samples`; nothing when there are no samples.
std::string prometheus_family(std::string_view name, std::string_view type, std::string_view help,
                              const std::string& samples);

}  // namespace anygpu::exporter
