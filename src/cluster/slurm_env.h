// What a Slurm allocation tells a task about itself: ranks, the node list, the GPUs it was
// given. Pure: the environment is passed in, so the planner and its tests share one path.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace anygpu {

using Environment = std::map<std::string, std::string>;

struct SlurmContext {
  std::string job_id;
  std::vector<std::string> nodes;  // SLURM_JOB_NODELIST expanded, in order
  std::string master_addr;         // the first node
  int master_port = 0;             // MASTER_PORT when exported, else master_port_for_job(job id)
  int rank = 0, world_size = 1;    // SLURM_PROCID, SLURM_NTASKS
  int local_rank = 0, local_world_size = 1;  // SLURM_LOCALID, tasks on this node
  int node_rank = 0, nnodes = 1;             // SLURM_NODEID, SLURM_NNODES
  // SLURM_STEP_GPUS, else SLURM_JOB_GPUS, split on commas as given; absent when neither is set.
  std::optional<std::vector<std::string>> gpus;
};

// MASTER_PORT for a job: kSlurmMasterPortBase + job_id % kSlurmMasterPortSpan, i.e. 20000-29999.
// Every task of the job computes the same port without talking to the others; the range is
// unprivileged and below Linux's ephemeral range (32768-60999), so an outgoing connection does
// not already hold it, and clear of Slurm's own 6817/6818/6819.
inline constexpr int kSlurmMasterPortBase = 20000;
inline constexpr int kSlurmMasterPortSpan = 10000;
int master_port_for_job(uint64_t job_id);

// Absent when SLURM_JOB_ID is unset; a malformed variable is a bad_input error naming it.
Result<std::optional<SlurmContext>> slurm_context(const Environment& env);

}  // namespace anygpu
