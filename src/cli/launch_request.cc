#include "cli/launch_request.h"

#include <filesystem>

#include "launch/slurm_map.h"
#include "util/strings.h"

namespace anygpu::cli {

Result<std::optional<SlurmContext>> slurm_allocation(const Environment& environment) {
  if (!environment.count("SLURM_JOB_ID")) return std::optional<SlurmContext>();
  auto s = slurm_context(environment);
  if (!s) return bad_input(cat({"Slurm allocation: ", s.error().message}));
  return *s;
}

Result<SelectRequest> launch_select_request(const LaunchRequestInputs& in,
                                            const Environment& environment,
                                            const std::optional<SlurmContext>& slurm,
                                            std::vector<std::string>& notes) {
  SelectRequest request;
  if (in.nproc_per_node) {
    auto n = parse_nproc_per_node(*in.nproc_per_node);
    if (!n) return n.error();
    request.processes_per_node = *n;
  } else if (slurm) {
    request.processes_per_node = slurm->local_world_size;
  }
  if (!in.config.empty()) request.config_path = in.config;
  request.python = in.python;
  request.image = in.image;
  request.caller_env = environment;
  request.check_contracts = in.check_contracts;
  if (!in.spec.empty())
    request.extra_contracts.push_back(in.spec);
  else if (in.check_contracts && std::filesystem::exists("runtime-spec.yaml"))
    request.extra_contracts.push_back("runtime-spec.yaml");
  std::string devices = in.devices;
  request.adjust_config = [devices, &slurm, &notes](AcceleratorConfig& config,
                                                    const Inventory& inventory) {
    if (!devices.empty())
      if (auto applied = apply_devices_option(config, devices); !applied) return applied;
    return slurm ? apply_slurm_gpus(*slurm, inventory, config, notes) : Result<bool>(true);
  };
  if (slurm) {
    request.allocation_governs = true;
    if (slurm->gpus)
      request.selection_context = cat({"Slurm allocation (GPUs ", join(*slurm->gpus, ","), ")"});
  }
  return request;
}

}  // namespace anygpu::cli
