// plan_launch: native, torchrun, container, and Slurm composed into one LaunchPlan.
#include <algorithm>

#include "launch/container_plan.h"
#include "launch/hang_env.h"
#include "launch/plan.h"
#include "launch/slurm_map.h"
#include "launch/torchrun_plan.h"
#include "util/strings.h"

namespace anygpu {

Result<std::optional<int>> parse_nproc_per_node(const std::string& text) {
  if (text == "auto") return std::optional<int>();
  auto n = parse_int(text);
  if (!n) return bad_input(cat({"--nproc-per-node '", text, "': expected a count or 'auto'"}));
  if (*n < 1 || *n > 65536)
    return bad_input(cat({"--nproc-per-node ", text,
                          ": must be between 1 and 65536 (use 'auto' for one per device)"}));
  return std::optional<int>(static_cast<int>(*n));
}

namespace {

void set_env(std::vector<EnvVar>& env, const std::string& name, const std::string& value) {
  for (auto& e : env)
    if (e.first == name) {
      e.second = value;
      return;
    }
  env.emplace_back(name, value);
}

void drop_env(std::vector<EnvVar>& env, const std::string& name) {
  env.erase(
      std::remove_if(env.begin(), env.end(), [&](const EnvVar& e) { return e.first == name; }),
      env.end());
}

const std::string* env_value(const std::vector<EnvVar>& env, const std::string& name) {
  for (const auto& e : env)
    if (e.first == name) return &e.second;
  return nullptr;
}

// Slurm's oneAPI mask counts cards (gres lines, F-42), but Level Zero reads ZE_AFFINITY_MASK in
// the hierarchy ZE_FLAT_DEVICE_HIERARCHY names (F-39): under FLAT, which a selection of tiles
// sets, a card's number names a tile. The tiles' flat numbers replace it, counted as Slurm
// counted: its GPU indices themselves are host numbering (the selection's own mask); anything
// else is its cgroup-local numbering, in which the step sees only its cards, so its tiles are
// 0..n-1.
std::optional<std::string> flat_mask_for_slurm_step(const Selection& selection,
                                                    const std::string& slurm_mask,
                                                    const SlurmContext& slurm) {
  const auto* hierarchy = env_value(selection.env, "ZE_FLAT_DEVICE_HIERARCHY");
  const auto* own = env_value(selection.env, "ZE_AFFINITY_MASK");
  if (!hierarchy || *hierarchy != "FLAT" || !own) return std::nullopt;
  auto entries = [](const std::string& list) {
    std::vector<std::string> out;
    for (const auto& e : split(list, ',')) out.push_back(std::string(trim(e)));
    return out;
  };
  if (slurm.gpus && entries(slurm_mask) == entries(join(*slurm.gpus, ","))) return *own;
  std::vector<std::string> local;
  for (size_t i = 0; i < selection.devices.size(); ++i) local.push_back(std::to_string(i));
  return join(local, ",");
}

}  // namespace

Result<LaunchPlan> plan_launch(const Selection& selection, const LaunchOptions& options,
                               const HostFacts& facts, const Environment& environment,
                               const std::optional<SlurmContext>& slurm, const Registry& registry) {
  if (options.command.empty())
    return bad_input("no command: write it after --, e.g. anygpu run -- python train.py");
  if (options.command.front().empty()) return bad_input("the command name is empty");
  std::vector<std::string> notes;
  const Vendor* v = registry.vendor(selection.vendor);
  std::string visible = v ? std::string(v->visible_devices_env) : std::string();

  std::vector<EnvVar> env = selection.env;
  std::vector<std::string> unset;
  // HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES re-index each other: exactly one may be set.
  auto rocr_conflict = [&] {
    return visible == "HIP_VISIBLE_DEVICES" && environment.count("ROCR_VISIBLE_DEVICES");
  };
  if (slurm) {
    // Slurm's own variable already names the allocation in the numbering its cgroup implies.
    bool slurm_set = !visible.empty() && environment.count(visible) &&
                     std::find(kSlurmSetVisibleVariables.begin(), kSlurmSetVisibleVariables.end(),
                               visible) != kSlurmSetVisibleVariables.end();
    // CUDA takes a MIG instance by its MIG-<uuid> only (facts F-9); Slurm exports one only when
    // its NVML detection wrote the gres lines (F-10), else an index that names no instance.
    if (slurm_set && names_mig_instances(selection) &&
        !environment.at(visible).starts_with("MIG-")) {
      notes.push_back(cat({"replacing Slurm's ", visible, "=", environment.at(visible),
                           ": CUDA takes a MIG instance by its MIG-<uuid> only"}));
    } else if (auto flat =
                   slurm_set && visible == "ZE_AFFINITY_MASK"
                       ? flat_mask_for_slurm_step(selection, environment.at(visible), *slurm)
                       : std::nullopt) {
      set_env(env, visible, *flat);
      notes.push_back(
          cat({"replacing Slurm's ", visible, "=", environment.at(visible), " with ", *flat,
               ": under ZE_FLAT_DEVICE_HIERARCHY=FLAT Level Zero counts tiles, "
               "Slurm counted cards"}));
    } else if (slurm_set) {
      drop_env(env, visible);
      notes.push_back(cat({"keeping Slurm's ", visible, "=", environment.at(visible)}));
    } else if (rocr_conflict()) {
      drop_env(env, visible);
      notes.push_back(cat({"keeping Slurm's ROCR_VISIBLE_DEVICES=",
                           environment.at("ROCR_VISIBLE_DEVICES"), "; not setting ", visible}));
    } else if (!visible.empty() && slurm->gpus) {
      notes.push_back(cat({visible, " derived from the Slurm allocation (Slurm sets none for ",
                           selection.vendor, ")"}));
    }
  } else {
    unset = selection.unset;
    if (rocr_conflict() &&
        std::find(unset.begin(), unset.end(), "ROCR_VISIBLE_DEVICES") == unset.end())
      unset.push_back("ROCR_VISIBLE_DEVICES");
  }

  std::vector<std::string> argv = options.command;
  bool torchrun = options.nproc_per_node.has_value();
  if (torchrun) {
    auto nproc = parse_nproc_per_node(*options.nproc_per_node);
    if (!nproc) return nproc.error();
    TorchrunSettings t;
    t.interpreter = torchrun_interpreter(options.command);
    t.nproc_per_node =
        nproc->value_or(std::max<int>(1, static_cast<int>(selection.devices.size())));
    t.nnodes = options.nnodes;
    t.node_rank = options.node_rank;
    t.master_addr = options.master_addr;
    t.master_port = options.master_port;
    if (slurm) {
      if (!t.nnodes) t.nnodes = slurm->nnodes;
      if (!t.node_rank) t.node_rank = slurm->node_rank;
      if (!t.master_addr) t.master_addr = slurm->master_addr;
      if (!t.master_port) t.master_port = slurm->master_port;
    }
    if (t.nnodes && *t.nnodes < 1) return bad_input("--nnodes must be at least 1");
    if (t.node_rank && t.nnodes && (*t.node_rank < 0 || *t.node_rank >= *t.nnodes))
      return bad_input(cat({"--node-rank ", std::to_string(*t.node_rank), " is outside 0..",
                            std::to_string(*t.nnodes - 1)}));
    t.std_workaround = !options.image && facts.torchrun_needs_std_workaround;
    argv = torchrun_argv(t, options.command);
    notes.push_back(cat({"torchrun: ", std::to_string(t.nproc_per_node), " process",
                         t.nproc_per_node == 1 ? "" : "es", " per node, dist backend ",
                         selection.dist_backend}));
  } else if (options.nnodes || options.node_rank || options.master_addr || options.master_port) {
    return bad_input(
        "--nnodes, --node-rank, --master-addr and --master-port need --nproc-per-node");
  }
  if (slurm)
    for (const auto& [k, val] : slurm_rank_env(*slurm, torchrun)) set_env(env, k, val);

  if (options.debug_hangs) {
    auto hangs = hang_debug_env(*options.debug_hangs, options, selection, environment, notes);
    if (!hangs) return hangs.error();
    for (const auto& [k, val] : *hangs) set_env(env, k, val);
  }

  LaunchPlan plan;
  if (options.image) {
    auto c = plan_container(selection, options, facts, env, argv, registry);
    if (!c) return c.error();
    plan = std::move(*c);
    if (torchrun) plan.mode = "container+torchrun";
  } else {
    plan.mode = torchrun ? "torchrun" : "native";
    plan.argv = std::move(argv);
    plan.env = std::move(env);
    plan.unset_env = std::move(unset);
    for (size_t i = 0; i < selection.devices.size(); ++i) {
      const auto& d = selection.devices[i];
      plan.devices.push_back({d.vendor, d.index, d.pci.address.str(), {}, {}});
      if (const auto* p = selection.partition_of(i)) plan.devices.back().partition = *p;
    }
  }
  plan.notes.insert(plan.notes.begin(), notes.begin(), notes.end());
  plan.hang_watch = options.debug_hangs;
  return plan;
}

}  // namespace anygpu
