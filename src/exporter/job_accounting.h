// Per-job accounting over the exporter's process scans: for every (job, device), busy time from
// the DRM engine counters (or a library's per-process utilisation where there are none), the device's energy counter apportioned by engine-time share, the
// memory the job holds, and whether the device is in the job's allocation while no process of
// the job holds it. Counters grow from scan to scan; the number of (job, device) entries is
// capped and ended jobs are forgotten after a while, so the series stay bounded.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "metrics/sample.h"
#include "model/inventory.h"
#include "ps/processes.h"

namespace anygpu::exporter {

struct JobKey {
  std::string kind;  // "slurm", "pod", "container"
  std::string id;    // job id, pod uid, container id
  auto operator<=>(const JobKey&) const = default;
};

// The job a process counts for: its Slurm job, else its pod, else its container; none for a
// process outside all three.
std::optional<JobKey> job_of(const ps::Attribution& a);

// Devices (PCI bus ids) each job was allocated, where that could be read.
using JobAllocations = std::map<JobKey, std::set<std::string>>;

struct JobDeviceUsage {
  JobKey job;
  std::string pci_bus_id, vendor;
  int index = 0;
  // Counters since the exporter first saw the job on the device. Busy comes from the DRM engine
  // counters, else from the library's per-process utilisation (NVML's), and is absent while
  // neither speaks for a process of the job on the device; energy is absent until a window was
  // measured on a device with an energy counter.
  std::optional<double> busy_seconds, energy_joules;
  std::optional<uint64_t> memory_bytes;  // the last scan's; absent when unknown or not held
  bool allocated_idle = false;           // allocated to the job, held by none of its processes
  bool seen = false;  // the last scan found the job on the device (held, counted or allocated)
};

struct JobSeries {
  std::vector<JobDeviceUsage> usage;  // by job, then bus id
  // (job, device) entries given up: refused or pushed out because the cap was full, and
  // forgotten after the job ended.
  uint64_t dropped_cap = 0, dropped_ended = 0;
  size_t max_series = 0;
};

struct JobAccountingOptions {
  size_t max_series = 1000;  // (job, device) entries kept at most
  // How long an entry stays after the last scan that saw the job on the device (held,
  // allocated or counted), so a scraper reads its final counters.
  std::chrono::seconds keep_ended{600};
};

// One scan as the accountant reads it.
struct JobScan {
  const ps::ProcessScan& processes;
  std::map<std::string, double> energy_joules;  // device counter by bus id, where there is one
  JobAllocations allocations;
  std::chrono::steady_clock::time_point at;
};

class JobAccountant {
 public:
  explicit JobAccountant(const Inventory& inventory, JobAccountingOptions options = {});
  // Folds one scan in. The first scan only sets the baseline: busy time and energy count from
  // the second on.
  JobSeries update(const JobScan& scan);

 private:
  struct Entry {
    std::optional<double> busy_seconds, energy_joules;
    std::optional<uint64_t> memory_bytes;
    bool allocated_idle = false;
    std::chrono::steady_clock::time_point last_seen{};
  };
  using EntryKey = std::pair<JobKey, std::string>;  // job, bus id
  struct Device {
    std::string vendor;
    int index = 0;
  };

  Entry* entry(const EntryKey& key, const std::set<EntryKey>& this_scan);
  JobSeries series(std::chrono::steady_clock::time_point at) const;

  JobAccountingOptions options_;
  std::map<std::string, Device> devices_;
  std::map<EntryKey, Entry> entries_;
  // The previous scan: engine ns per (pid, bus id) and engine, energy per bus id, its time.
  std::map<std::pair<int, std::string>, std::map<std::string, uint64_t>> engines_;
  std::map<std::string, double> energy_;
  std::optional<std::chrono::steady_clock::time_point> at_;
  uint64_t dropped_cap_ = 0, dropped_ended_ = 0;
};

// anygpu_job_gpu_busy_seconds_total, anygpu_job_gpu_energy_joules_total,
// anygpu_job_gpu_memory_bytes, anygpu_gpu_allocated_idle (device labels as the metrics', plus
// job_kind and job_id), anygpu_job_series, anygpu_job_series_max and
// anygpu_job_series_dropped_total{reason}.
std::string render_jobs_prometheus(const JobSeries& jobs, const MetricsSnapshot& snapshot);

}  // namespace anygpu::exporter
