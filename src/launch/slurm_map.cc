#include "launch/slurm_map.h"

#include <algorithm>

#include "cluster/gres.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string line_text(size_t index, const GresLine& line) {
  return cat({std::to_string(index), " = gres.conf GPU line ", std::to_string(index + 1), " (",
              line.type, ", ", line.device->vendor, " ",
              line.partition ? line.partition->id : line.device->pci.address.str(), ")"});
}

}  // namespace

Result<bool> apply_slurm_gpus(const SlurmContext& slurm, const Inventory& inventory,
                              AcceleratorConfig& config, std::vector<std::string>& notes,
                              const Registry& registry) {
  if (!slurm.gpus || slurm.gpus->empty()) return false;
  auto lines = gres_lines(inventory, nullptr, registry);
  auto given = join(*slurm.gpus, ",");
  std::vector<DeviceRef> list;
  std::vector<std::string> mapped, vendors;
  for (const auto& id : *slurm.gpus) {
    auto n = parse_int(trim(id));
    if (!n || *n < 0 || *n > 65535)
      return bad_input(cat({"SLURM_STEP_GPUS/SLURM_JOB_GPUS: '", id, "' is not a GPU index"}));
    auto index = static_cast<size_t>(*n);
    if (index >= lines.size())
      return host_error(cat({"Slurm allocated GPU ", id, " but the gres.conf `anygpu slurm gres` ",
                             "writes for this node has ", std::to_string(lines.size()), " GPU line",
                             lines.size() == 1 ? "" : "s",
                             ": was the node's gres.conf written for other devices?"}));
    const Device& d = *lines[index].device;
    // A partition's line (slurm gres writes one per partition) selects that partition; a
    // partitioned device's one line (tiles: a card's nodes reach all of them) selects them all.
    DeviceRef ref;
    ref.bus_id = d.pci.address.str();
    if (const auto* p = lines[index].partition) {
      ref.partition = p->index;
      list.push_back(ref);
    } else if (d.partitions.empty()) {
      list.push_back(ref);
    } else {
      for (const auto& p : d.partitions) {
        ref.partition = p.index;
        list.push_back(ref);
      }
    }
    mapped.push_back(line_text(index, lines[index]));
    if (std::find(vendors.begin(), vendors.end(), d.vendor) == vendors.end())
      vendors.push_back(d.vendor);
  }
  if (vendors.size() > 1)
    return host_error(cat({"Slurm allocated GPUs of ", join(vendors, " and "), " (",
                           join(mapped, "; "), "): one process drives one vendor; request one ",
                           "Type, e.g. --gres=gpu:", lines.front().type, ":N"}));
  if (config.backend != "auto" && config.backend != vendors.front())
    return host_error(cat({"Slurm allocated ", vendors.front(), " GPUs (", given, ") but ",
                           config.file.empty() ? std::string("the config") : config.file,
                           " asks for backend '", config.backend_written, "'"}));
  config.backend = vendors.front();
  config.list = std::move(list);
  config.list_origin = cat({"Slurm allocation ", given});
  config.count.reset();
  notes.push_back(cat(
      {"Slurm allocated GPUs ", given, ": selecting exactly those (", join(mapped, "; "), ")"}));
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
