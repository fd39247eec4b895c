// The launch plan: what `anygpu run` will execute, decided before anything runs. The planner is
// a pure function of host facts, the device selection, the options, the command and the
// caller's environment, so every launch mode is testable without starting a process.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/slurm_env.h"
#include "container/container_edits.h"
#include "select/select.h"
#include "util/result.h"

namespace anygpu {

// `run --debug-hangs`: where the ranks write their beats and stack dumps, and how long a rank
// may go without a beat before the launch is called hung (launch/hang_watch.h).
struct HangDebug {
  std::string dir;  // absolute
  uint64_t seconds = 300;
};

struct LaunchOptions {
  std::vector<std::string> command;  // after `--`, byte for byte

  // Containers.
  std::optional<std::string> image;
  std::optional<std::string> engine;  // podman | docker; absent: podman if on PATH, else docker
  std::vector<std::string> engine_args;
  std::string user = "1001:1001";
  std::string shm_size = "8g";
  bool read_only = false;

  // torchrun. nproc_per_node: "auto" or a positive count; absent: no torchrun.
  std::optional<std::string> nproc_per_node;
  std::optional<int> nnodes;
  std::optional<int> node_rank;
  std::optional<std::string> master_addr;
  std::optional<int> master_port;

  std::optional<HangDebug> debug_hangs;
};

// What the planner needs to know about the machine, gathered once (launch/host_facts.h).
struct HostFacts {
  std::string root_prefix;  // "" at the real root, else the --root directory
  // What the container gets for the selected devices (container/container_edits.h), in the
  // selection's device order; its device pointers refer to the selection's devices.
  SelectionEdits edits;
  std::vector<std::string> engines_on_path;  // "podman", "docker" found on PATH
  std::optional<std::vector<std::string>>
      cdi_names;    // one per selected device, when a spec covers them
  std::string cwd;  // mounted at /workspace
  // torchrun 1.13 on Python >= 3.11 crashes unless stdout/stderr redirects are non-zero.
  bool torchrun_needs_std_workaround = false;
};

struct PlanDevice {
  std::string vendor;
  int index = 0;
  std::string bus_id;
  std::vector<std::string> nodes;      // host paths handed to the container (empty natively)
  std::optional<Partition> partition;  // the unit is this partition of the device
};

struct LaunchPlan {
  std::string mode;  // native | container | torchrun | container+torchrun
  std::vector<std::string> argv;
  std::vector<EnvVar> env;             // set on top of the caller's environment
  std::vector<std::string> unset_env;  // removed from the caller's environment
  std::vector<PlanDevice> devices;
  std::optional<std::string> engine;
  std::vector<std::string> notes;       // why (for -v)
  std::optional<HangDebug> hang_watch;  // watched while anygpu supervises the launch
};

// "auto" or a count in 1..65536 ("0" and garbage are bad_input with a clear message).
// Returns the processes per node to hand to the selection: absent for "auto" (one per device).
Result<std::optional<int>> parse_nproc_per_node(const std::string& text);

Result<LaunchPlan> plan_launch(const Selection& selection, const LaunchOptions& options,
                               const HostFacts& facts, const Environment& environment,
                               const std::optional<SlurmContext>& slurm,
                               const Registry& registry = Registry::builtin());

}  // namespace anygpu
