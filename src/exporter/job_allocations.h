// The GPUs each Slurm job on the node was allocated: SLURM_JOB_GPUS read from one process of
// the job (/proc/PID/environ, root only), mapped to devices through the node's gres.conf line
// order, so a device of the allocation that no process of the job holds can be shown. Jobs come
// from the scan's holders and from Slurm's cgroups (a job that holds no device at all).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exporter/job_accounting.h"
#include "host/host_root.h"
#include "ps/processes.h"

namespace anygpu::exporter {

// The processes (at most 64) of every Slurm job whose cgroup exists beneath the root, by job id.
std::map<std::string, std::vector<int>> slurm_job_pids(const HostRoot& host);

class SlurmAllocations {
 public:
  // `gres_order`: the device (PCI bus id) of each gres.conf GPU line, in line order, as `anygpu
  // slurm gres` writes them; SLURM_JOB_GPUS counts in these lines.
  explicit SlurmAllocations(std::vector<std::string> gres_order);

  // Every Slurm job among the scan's processes or in Slurm's cgroups whose allocation could be
  // read. An environment never changes, so each pid is read once while it lives.
  JobAllocations read(const HostRoot& host, const ps::ProcessScan& scan);

 private:
  const std::optional<std::vector<int>>& gpus_of(
      const HostRoot& host, int pid, std::map<int, std::optional<std::vector<int>>>& seen);
  void add(JobAllocations& out, const std::string& job, const std::vector<int>& gpus) const;

  std::vector<std::string> gres_order_;
  std::map<int, std::optional<std::vector<int>>> by_pid_;
};

}  // namespace anygpu::exporter
