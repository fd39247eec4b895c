#include "launch/slurm_map.h"

#include "util/strings.h"

namespace anygpu {

Result<bool> apply_slurm_gpus(const SlurmContext& slurm, AcceleratorConfig& config,
                              std::vector<std::string>& notes) {
  if (!slurm.gpus || slurm.gpus->empty()) return false;
  std::vector<DeviceRef> list;
  for (const auto& id : *slurm.gpus) {
    auto n = parse_int(trim(id));
    if (!n || *n < 0 || *n > 65535)
      return bad_input(cat({"SLURM_STEP_GPUS/SLURM_JOB_GPUS: '", id, "' is not a GPU index"}));
    DeviceRef ref;
    ref.index = static_cast<int>(*n);
    list.push_back(ref);
  }
  config.list = std::move(list);
  config.list_origin = cat({"Slurm allocation ", join(*slurm.gpus, ",")});
  config.count.reset();
  notes.push_back(
      cat({"Slurm allocated GPUs ", join(*slurm.gpus, ","), ": selecting exactly those"}));
  return true;
}

std::vector<EnvVar> slurm_rank_env(const SlurmContext& s, bool torchrun) {
  std::vector<EnvVar> env = {{"MASTER_ADDR", s.master_addr},
                             {"MASTER_PORT", std::to_string(s.master_port)}};
  if (torchrun) return env;
  env.insert(env.end(), {{"RANK", std::to_string(s.rank)},
                         {"WORLD_SIZE", std::to_string(s.world_size)},
                         {"LOCAL_RANK", std::to_string(s.local_rank)},
                         {"LOCAL_WORLD_SIZE", std::to_string(s.local_world_size)},
                         {"NODE_RANK", std::to_string(s.node_rank)}});
  return env;
}

}  // namespace anygpu
