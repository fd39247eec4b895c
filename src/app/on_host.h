// select_on_host(): one path from a request to a selection — load the accelerator config, probe
// the host, check the runtime contracts, select — for `select`, `run` and the C ABI (so Python)
// alike. It composes select/ and contract/, so it lives above both.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contract/check.h"
#include "host/host_root.h"
#include "registry/registry.h"
#include "select/select.h"
#include "util/diagnostics.h"
#include "util/result.h"

namespace anygpu {

struct SelectRequest {
  std::optional<std::string> config_path;  // absent: ./accelerator-config.yaml, may be missing
  std::optional<int> processes_per_node;   // absent: caller_env's LOCAL_WORLD_SIZE, else one
                                           // per device
  std::string python = "python3";          // for the runtime contract's package checks
  std::string image;  // `run --container`: the image holds the packages, not `python`
  std::map<std::string, std::string> caller_env;  // see SelectInputs::caller_env
  // Contracts checked after the config's own runtime_contract (`run`: --spec, or
  // ./runtime-spec.yaml); a file named twice is checked once.
  std::vector<std::string> extra_contracts;
  bool check_contracts = true;  // false: `run --no-check`
  // Applied to the loaded config before selecting, with the host's devices (a Slurm
  // allocation's GPU list names gres.conf lines, which only the inventory turns into devices).
  std::function<Result<bool>(AcceleratorConfig&, const Inventory&)> adjust_config;
  bool allocation_governs = false;  // see SelectInputs::allocation_governs
  std::string selection_context;    // prefixed to a selection error, e.g. "Slurm allocation (…)"
};

struct ContractOutcome {
  std::string path;
  Verdict verdict;
};

struct SelectOutcome {
  AcceleratorConfig config;
  std::vector<ContractOutcome> contracts;  // checked, in order, up to the first that failed
  std::optional<Selection> selection;      // absent when a contract failed
  // What the selection was made from, so that it can be made again without probing (a run
  // re-selecting around devices other runs hold).
  Inventory inventory;
  SelectInputs inputs;

  const ContractOutcome* failed_contract() const {
    return !contracts.empty() && !contracts.back().verdict.passed() ? &contracts.back() : nullptr;
  }
};

inline constexpr const char* kDefaultAcceleratorConfig = "accelerator-config.yaml";

// Discovery's diagnostics go to `diagnostics`, also when the selection then fails (a device left
// out for a malformed file may be why none fits).
Result<SelectOutcome> select_on_host(const HostRoot& host, const SelectRequest& request,
                                     Diagnostics& diagnostics,
                                     const Registry& registry = Registry::builtin());

}  // namespace anygpu
