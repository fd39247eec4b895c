// A Slurm allocation mapped onto a launch: its GPUs restrict the selection, its ranks become the
// variables torch.distributed reads.
#pragma once

#include <string>
#include <vector>

#include "cluster/slurm_env.h"
#include "select/accelerator_config.h"
#include "select/select.h"

namespace anygpu {

// Variables Slurm's gres/gpu plugin sets itself (with device cgroups they count from 0 inside
// the step); a launch keeps them rather than overriding them with host indices.
inline const std::vector<std::string> kSlurmSetVisibleVariables = {
    "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"};

// SLURM_STEP_GPUS / SLURM_JOB_GPUS become the config's device list (vendor indices in PCI bus
// order, the order Slurm's AutoDetect numbers GPUs in). A non-numeric id is bad_input.
Result<bool> apply_slurm_gpus(const SlurmContext& slurm, AcceleratorConfig& config,
                              std::vector<std::string>& notes);

// MASTER_ADDR, MASTER_PORT, and (without torchrun, which sets its own) RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK.
std::vector<EnvVar> slurm_rank_env(const SlurmContext& slurm, bool torchrun);

}  // namespace anygpu
