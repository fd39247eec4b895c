// The GPUs each Slurm job holding devices was allocated: SLURM_JOB_GPUS read from one process
// of the job (/proc/PID/environ, root only), mapped to devices through the node's gres.conf
// line order, so a device of the allocation that no process of the job holds can be shown.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exporter/job_accounting.h"
#include "host/host_root.h"
#include "ps/processes.h"

namespace anygpu::exporter {

class SlurmAllocations {
 public:
  // `gres_order`: the device (PCI bus id) of each gres.conf GPU line, in line order, as `anygpu
  // slurm gres` writes them; SLURM_JOB_GPUS counts in these lines.
  explicit SlurmAllocations(std::vector<std::string> gres_order);

  // Every Slurm job among the scan's processes whose allocation could be read. An environment
  // never changes, so each pid is read once while it lives.
  JobAllocations read(const HostRoot& host, const ps::ProcessScan& scan);

 private:
  std::vector<std::string> gres_order_;
  std::map<int, std::optional<std::vector<int>>> by_pid_;
};

}  // namespace anygpu::exporter
