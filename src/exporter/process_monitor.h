// The exporter's process series (`--processes`): a thread scans /proc on its own interval and
// keeps the totals per device and per attribution (pod, container, Slurm job), never per pid,
// so a scrape renders a few lines and series do not come and go with every process.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "exporter/background.h"
#include "exporter/job_accounting.h"
#include "metrics/sample.h"
#include "model/inventory.h"
#include "ps/processes.h"

namespace anygpu::exporter {

struct ProcessSeries {
  struct Device {
    std::string pci_bus_id, vendor;
    int index = 0;
    uint64_t processes = 0;
  };
  // Memory of the processes on one device that share an attribution; empty strings where a
  // process has none (a process outside any container, pod or job) or where the pod's name is
  // not known (the kubelet's pod-resources socket did not answer).
  struct Group {
    std::string pci_bus_id, vendor;
    int index = 0;
    std::string pod_uid, pod_name, pod_namespace, container_id, slurm_job;
    uint64_t memory_bytes = 0;
  };
  std::vector<Device> devices;  // every listed device, holders or not
  std::vector<Group> groups;    // ordered by key; only where memory is known
  int hidden = 0;
  std::chrono::system_clock::time_point scanned_at{};
  std::optional<JobSeries> jobs{};  // per-job accounting, when the scanner keeps it
};

// Totals of one scan over the inventory's devices.
ProcessSeries aggregate_processes(const ps::ProcessScan& scan, const Inventory& inventory);

using ProcessScanner = std::function<ProcessSeries()>;

class ProcessMonitor {
 public:
  // Scans once before returning, then every `interval` in its own thread.
  ProcessMonitor(ProcessScanner scan, std::chrono::milliseconds interval);
  ~ProcessMonitor();
  ProcessMonitor(const ProcessMonitor&) = delete;
  ProcessMonitor& operator=(const ProcessMonitor&) = delete;

  std::shared_ptr<const ProcessSeries> latest() const;
  void stop();

 private:
  void scan_once();

  ProcessScanner scan_;
  mutable std::mutex mu_;
  std::shared_ptr<const ProcessSeries> latest_;
  PeriodicTask task_;  // last: starts once the state above exists, stops before it goes
};

// anygpu_processes, anygpu_process_memory_bytes, anygpu_processes_hidden and
// anygpu_processes_age_seconds. Device labels are those of the metrics snapshot's device with
// the same bus id (so the series join with the others), else vendor, gpu and pci_bus_id.
std::string render_processes_prometheus(const ProcessSeries& series,
                                        const MetricsSnapshot& snapshot,
                                        std::chrono::system_clock::time_point now);

}  // namespace anygpu::exporter
