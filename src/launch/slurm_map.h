// A Slurm allocation mapped onto a launch: its GPUs restrict the selection, its ranks become the
// variables torch.distributed reads.
#pragma once

#include <string>
#include <vector>

#include "cluster/slurm_env.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "select/accelerator_config.h"
#include "select/select.h"

namespace anygpu {

// Variables Slurm's gres/gpu plugin sets itself (with device cgroups they count from 0 inside
// the step); a launch keeps them rather than overriding them with host indices.
inline const std::vector<std::string> kSlurmSetVisibleVariables = {
    "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK"};

// SLURM_STEP_GPUS / SLURM_JOB_GPUS become the config's device list, by PCI address. With
// AutoDetect=off (what `anygpu slurm gres` writes) slurmd numbers a node's GPUs in gres.conf's
// line order across every Type, so on a node of two vendors index 1 may be the AMD GPU whose
// vendor index is 0: each index is the line gres_lines() writes for this inventory. The
// allocation's vendor becomes the backend. A non-numeric id is bad_input; an index past the
// lines, or an allocation spanning vendors (one process drives one), is a host error.
Result<bool> apply_slurm_gpus(const SlurmContext& slurm, const Inventory& inventory,
                              AcceleratorConfig& config, std::vector<std::string>& notes,
                              const Registry& registry = Registry::builtin());

// MASTER_ADDR, MASTER_PORT, and (without torchrun, which sets its own) RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK.
std::vector<EnvVar> slurm_rank_env(const SlurmContext& slurm, bool torchrun);

}  // namespace anygpu
