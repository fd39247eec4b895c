// The job series of the exporter's page (docs/exporter.md, "Job series").
#include "exporter/background.h"
#include "exporter/job_accounting.h"
#include "metrics/prometheus.h"

namespace anygpu::exporter {

std::string render_jobs_prometheus(const JobSeries& jobs, const MetricsSnapshot& snapshot) {
  std::string busy, energy, memory, idle;
  for (const auto& u : jobs.usage) {
    auto l = device_labels(snapshot, u.pci_bus_id, u.vendor, u.index);
    l.emplace_back("job_kind", u.job.kind);
    l.emplace_back("job_id", u.job.id);
    // Absent, never 0, where the source cannot tell.
    if (u.busy_seconds)
      busy += prometheus_sample("anygpu_job_gpu_busy_seconds_total", l, *u.busy_seconds);
    if (u.energy_joules)
      energy += prometheus_sample("anygpu_job_gpu_energy_joules_total", l, *u.energy_joules);
    if (u.memory_bytes)
      memory +=
          prometheus_sample("anygpu_job_gpu_memory_bytes", l, static_cast<double>(*u.memory_bytes));
    if (u.allocated_idle) idle += prometheus_sample("anygpu_gpu_allocated_idle", l, 1);
  }
  std::string out =
      prometheus_family("anygpu_job_gpu_busy_seconds_total", "counter",
                        "Seconds the job's processes kept the device's busiest engine busy "
                        "(DRM engine counters), since the exporter first saw the job on it.",
                        busy) +
      prometheus_family("anygpu_job_gpu_energy_joules_total", "counter",
                        "The device's energy apportioned to the job by engine-time share over "
                        "each scan window, joules.",
                        energy) +
      prometheus_family("anygpu_job_gpu_memory_bytes", "gauge",
                        "Device memory the job's processes hold, bytes.", memory) +
      prometheus_family("anygpu_gpu_allocated_idle", "gauge",
                        "1: the device is in the job's allocation and no process of the job "
                        "holds it.",
                        idle);
  out += prometheus_family(
      "anygpu_job_series", "gauge", "(job, device) entries kept, at most anygpu_job_series_max.",
      prometheus_sample("anygpu_job_series", {}, static_cast<double>(jobs.usage.size())));
  out += prometheus_family(
      "anygpu_job_series_max", "gauge", "The cap on (job, device) entries (--max-job-series).",
      prometheus_sample("anygpu_job_series_max", {}, static_cast<double>(jobs.max_series)));
  out += prometheus_family(
      "anygpu_job_series_dropped_total", "counter",
      "(job, device) entries given up: reason cap (refused, or an idle one pushed out, at a scan "
      "that found the cap full), reason ended (not seen for the keep time).",
      prometheus_sample("anygpu_job_series_dropped_total", {{"reason", "cap"}},
                        static_cast<double>(jobs.dropped_cap)) +
          prometheus_sample("anygpu_job_series_dropped_total", {{"reason", "ended"}},
                            static_cast<double>(jobs.dropped_ended)));
  return out;
}

}  // namespace anygpu::exporter
