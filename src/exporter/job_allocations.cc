#include "exporter/job_allocations.h"

#include "ps/allocation.h"

namespace anygpu::exporter {

SlurmAllocations::SlurmAllocations(std::vector<std::string> gres_order)
    : gres_order_(std::move(gres_order)) {}

JobAllocations SlurmAllocations::read(const HostRoot& host, const ps::ProcessScan& scan) {
  JobAllocations out;
  std::map<int, std::optional<std::vector<int>>> seen;
  for (const auto& p : scan.processes) {
    if (!p.attribution.slurm) continue;
    auto cached = by_pid_.find(p.pid);
    const auto& gpus = seen[p.pid] =
        cached != by_pid_.end() ? cached->second : ps::read_slurm_job_gpus(host, p.pid);
    if (!gpus) continue;
    auto& devices = out[{"slurm", p.attribution.slurm->job_id}];
    for (int index : *gpus)
      if (static_cast<size_t>(index) < gres_order_.size())
        devices.insert(gres_order_[static_cast<size_t>(index)]);
  }
  by_pid_ = std::move(seen);  // pids gone from the scan are forgotten
  return out;
}

}  // namespace anygpu::exporter
