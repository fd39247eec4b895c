#include "exporter/process_monitor.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "metrics/prometheus.h"

namespace anygpu::exporter {

ProcessSeries aggregate_processes(const ps::ProcessScan& scan, const Inventory& inventory) {
  ProcessSeries out;
  out.hidden = scan.hidden;
  out.scanned_at = std::chrono::system_clock::now();
  std::map<std::string, size_t> device_at;  // bus id → index in out.devices
  for (const auto& d : inventory.devices) {
    auto bus = d.pci.address.str();
    if (device_at.emplace(bus, out.devices.size()).second)
      out.devices.push_back({bus, d.vendor, d.index, 0});
  }
  // bus, pod uid, pod name, pod namespace, container id, Slurm job
  using Key =
      std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, uint64_t> memory;
  for (const auto& p : scan.processes) {
    for (const auto& bus : p.devices)
      if (auto at = device_at.find(bus); at != device_at.end()) ++out.devices[at->second].processes;
    const auto& a = p.attribution;
    for (const auto& [bus, bytes] : p.memory_by_device) {
      if (!device_at.contains(bus)) continue;
      Key key{bus,
              a.pod_uid.value_or(""),
              p.pod_name.value_or(""),
              p.pod_namespace.value_or(""),
              a.container ? a.container->id : "",
              a.slurm ? a.slurm->job_id : ""};
      memory[key] += bytes;
    }
  }
  for (const auto& [key, bytes] : memory) {
    const auto& [bus, pod_uid, pod_name, pod_namespace, container_id, slurm_job] = key;
    const auto& dev = out.devices[device_at.at(bus)];
    out.groups.push_back({dev.pci_bus_id, dev.vendor, dev.index, pod_uid, pod_name, pod_namespace,
                          container_id, slurm_job, bytes});
  }
  return out;
}

ProcessMonitor::ProcessMonitor(ProcessScanner scan, std::chrono::milliseconds interval)
    : scan_(std::move(scan)), task_(interval, [this] { scan_once(); }) {}

ProcessMonitor::~ProcessMonitor() = default;

std::shared_ptr<const ProcessSeries> ProcessMonitor::latest() const {
  std::lock_guard lock(mu_);
  return latest_;
}

void ProcessMonitor::stop() {
  task_.stop();
}

void ProcessMonitor::scan_once() {
  auto series = std::make_shared<const ProcessSeries>(scan_());
  std::lock_guard lock(mu_);
  latest_ = std::move(series);
}

std::string render_processes_prometheus(const ProcessSeries& series,
                                        const MetricsSnapshot& snapshot,
                                        std::chrono::system_clock::time_point now) {
  std::string count, memory;
  for (const auto& d : series.devices)
    count += prometheus_sample("anygpu_processes",
                               device_labels(snapshot, d.pci_bus_id, d.vendor, d.index),
                               static_cast<double>(d.processes));
  for (const auto& g : series.groups) {
    auto l = device_labels(snapshot, g.pci_bus_id, g.vendor, g.index);
    // Absent rather than empty: the same series in PromQL, and shorter.
    if (!g.pod_uid.empty()) l.emplace_back("pod_uid", g.pod_uid);
    // kube-state-metrics' label names, so the series join its kube_pod_* series.
    if (!g.pod_namespace.empty()) l.emplace_back("namespace", g.pod_namespace);
    if (!g.pod_name.empty()) l.emplace_back("pod", g.pod_name);
    if (!g.container_id.empty()) l.emplace_back("container_id", g.container_id);
    if (!g.slurm_job.empty()) l.emplace_back("slurm_job", g.slurm_job);
    memory +=
        prometheus_sample("anygpu_process_memory_bytes", l, static_cast<double>(g.memory_bytes));
  }
  std::string out =
      prometheus_family("anygpu_processes", "gauge",
                        "Processes holding the device (its device nodes open).", count) +
      prometheus_family(
          "anygpu_process_memory_bytes", "gauge",
          "Device memory held by the processes with these pod, container and Slurm job "
          "labels (absent: none or not known), bytes.",
          memory);
  out += prometheus_family(
      "anygpu_processes_hidden", "gauge",
      "Processes whose descriptors the exporter may not read (not counted above).",
      prometheus_sample("anygpu_processes_hidden", {}, static_cast<double>(series.hidden)));
  if (series.jobs) out += render_jobs_prometheus(*series.jobs, snapshot);
  double age = std::chrono::duration<double>(now - series.scanned_at).count();
  out += prometheus_family(
      "anygpu_processes_age_seconds", "gauge", "Seconds since /proc was last scanned.",
      prometheus_sample("anygpu_processes_age_seconds", {}, age < 0 ? 0 : age));
  return out;
}

}  // namespace anygpu::exporter
