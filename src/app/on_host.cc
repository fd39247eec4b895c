// select_on_host(): the I/O around select_devices(), shared by `select`, `run` and the C ABI.
#include "app/on_host.h"

#include <filesystem>

#include <unistd.h>

#include "app/occupancy.h"
#include "probe/probe.h"
#include "topo/closeness.h"
#include "util/env_vars.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// The config's contract first, then the request's; the same file (however it is spelled) once.
std::vector<std::string> contract_paths(const AcceleratorConfig& config,
                                        const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  auto add = [&](const std::string& p) {
    std::error_code ec;
    auto canon = std::filesystem::weakly_canonical(p, ec);
    for (const auto& q : out)
      if (std::filesystem::weakly_canonical(q, ec) == canon) return;
    out.push_back(p);
  };
  if (config.runtime_contract) add(*config.runtime_contract);
  for (const auto& p : extra) add(p);
  return out;
}

// The caller's LOCAL_WORLD_SIZE by the table's rule (util/env_vars.h): a malformed value is
// refused, as Python's num_workers() refuses it, never taken as absent.
Result<std::optional<int>> local_world_size(const std::map<std::string, std::string>& env) {
  auto it = env.find("LOCAL_WORLD_SIZE");
  if (it == env.end()) return std::optional<int>();
  auto v = parse_env_value(*find_env_variable("LOCAL_WORLD_SIZE"), it->second);
  if (!v) return v.error();
  if (!*v) return std::optional<int>();
  return std::optional<int>(static_cast<int>(*(*v)->number));
}

}  // namespace

Result<SelectOutcome> select_on_host(const HostRoot& host, const SelectRequest& request,
                                     Diagnostics& diagnostics, const Registry& registry) {
  SelectOutcome out;
  auto path = request.config_path.value_or(kDefaultAcceleratorConfig);
  auto cfg = load_accelerator_config(path, request.config_path.has_value(), registry);
  if (!cfg) return cfg.error();
  out.config = std::move(*cfg);
  auto inv = probe(host, registry);
  diagnostics.add(inv.diagnostics);
  if (request.adjust_config)
    if (auto adjusted = request.adjust_config(out.config, inv); !adjusted) return adjusted.error();
  if (request.check_contracts) {
    for (const auto& contract : contract_paths(out.config, request.extra_contracts)) {
      CheckOptions options;
      options.python = request.python;
      options.image = request.image;
      auto verdict = check_contract_file(contract, inv, options);
      if (!verdict) return verdict.error();
      out.contracts.push_back({contract, std::move(*verdict)});
      if (!out.contracts.back().verdict.passed()) return out;
    }
  }
  SelectInputs in;
  in.processes_per_node = request.processes_per_node;
  if (!in.processes_per_node) {
    auto caller = local_world_size(request.caller_env);
    if (!caller) return caller.error();
    in.processes_per_node = *caller;
  }
  // This process's affinity describes this machine, not a replayed --root host.
  if (host.is_real_root()) in.affinity = current_affinity();
  in.caller_env = request.caller_env;
  in.allocation_governs = request.allocation_governs;
  // Links and PCIe switches steer only a choice of n of more devices (a count); reading them
  // (thousands of KFD link files on a partitioned host) is spared otherwise. A damaged link is
  // left out with a warning naming its file (topo/kfd_topology.h).
  if (out.config.count) {
    auto topology = read_topology(host, inv);
    for (const auto& w : topology.warnings) diagnostics.warn(w);
    in.closeness = closeness_of(topology);
  }
  // Free memory, utilisation and holders cost a sample and a /proc walk: read only for a config
  // that judges them.
  if (uses_occupancy(out.config))
    in.occupancy =
        read_occupancy(host, inv, static_cast<uint32_t>(::geteuid()), diagnostics, registry);
  auto sel = select_devices(inv, out.config, in, registry);
  out.inventory = std::move(inv);
  out.inputs = in;
  if (!sel && !request.selection_context.empty()) {
    auto e = sel.error();
    e.message = cat({request.selection_context, ": ", e.message});
    return e;
  }
  if (!sel) return sel.error();
  out.selection = std::move(*sel);
  return out;
}

}  // namespace anygpu
