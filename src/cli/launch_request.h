// The selection request `run` and `preflight` share: the accelerator config, `--devices`, and
// inside a Slurm allocation its GPU list governing (mapped through the gres.conf lines).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/on_host.h"
#include "cluster/slurm_env.h"
#include "launch/plan.h"

namespace anygpu::cli {

struct LaunchRequestInputs {
  std::string config;   // --config; empty: ./accelerator-config.yaml when present
  std::string devices;  // --devices; empty: the config's devices:
  std::string python = "python3";
  std::optional<std::string> nproc_per_node;  // --nproc-per-node
  bool check_contracts = true;
  std::string spec;   // --spec; empty: ./runtime-spec.yaml when present
  std::string image;  // --container: its packages are judged in the image
};

// `slurm` (the allocation, when inside one) and `notes` must outlive the request: its config
// adjustment refers to them.
Result<SelectRequest> launch_select_request(const LaunchRequestInputs& in,
                                            const Environment& environment,
                                            const std::optional<SlurmContext>& slurm,
                                            std::vector<std::string>& notes);

// The allocation this process runs in (SLURM_JOB_ID set), or none; bad_input when its
// variables do not fit together.
Result<std::optional<SlurmContext>> slurm_allocation(const Environment& environment);

}  // namespace anygpu::cli
