// The allocation as Slurm describes it to each task (srun/sbatch "OUTPUT ENVIRONMENT
// VARIABLES"). Every variable is validated: a task that guesses its rank wrong hangs the whole
// job at the first collective, so a malformed value is an error naming the variable.
#include "cluster/slurm_env.h"

#include "cluster/hostlist.h"
#include "cluster/tasks_per_node.h"
#include "util/strings.h"

namespace anygpu {

namespace {

const std::string* get(const Environment& env, std::string_view name) {
  auto it = env.find(std::string(name));
  return it == env.end() ? nullptr : &it->second;
}

// First of `names` that is set.
std::pair<std::string_view, const std::string*> first_set(
    const Environment& env, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (const auto* v = get(env, n)) return {n, v};
  return {{}, nullptr};
}

Error bad_var(std::string_view name, std::string_view value, std::string_view why) {
  return bad_input(cat({name, "=\"", value, "\": ", why}));
}

// A count or id in [min, 2^24] (far beyond any real job); `fallback` when none of `names` is
// set.
Result<int> int_var(const Environment& env, std::initializer_list<std::string_view> names,
                    int fallback, int min = 0) {
  constexpr uint64_t kMax = 1 << 24;
  auto [name, value] = first_set(env, names);
  if (!value) return fallback;
  auto v = parse_uint(*value);
  if (!v || *v > kMax || *v < static_cast<uint64_t>(min))
    return bad_var(
        name, *value,
        cat({"expected a whole number from ", std::to_string(min), " to ", std::to_string(kMax)}));
  return static_cast<int>(*v);
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  for (auto item : split(text, ','))
    if (auto t = trim(item); !t.empty()) out.emplace_back(t);
  return out;
}

}  // namespace

int master_port_for_job(uint64_t job_id) {
  return kSlurmMasterPortBase + static_cast<int>(job_id % kSlurmMasterPortSpan);
}

Result<std::optional<SlurmContext>> slurm_context(const Environment& env) {
  const auto* job = get(env, "SLURM_JOB_ID");
  if (!job) return std::optional<SlurmContext>();
  SlurmContext c;
  auto job_number = parse_uint(*job);
  if (!job_number) return bad_var("SLURM_JOB_ID", *job, "expected the numeric job id");
  c.job_id = std::string(trim(*job));

  // The step's node list is where its tasks (rank 0 first) run; it equals the job's list
  // unless the step uses part of the allocation (srun -N1 inside a two-node job).
  auto [list_name, list] = first_set(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (!list) return bad_input("SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not");
  auto nodes = expand_hostlist(*list);
  if (!nodes) return bad_input(cat({list_name, ": ", nodes.error().message}));
  if (nodes->empty()) return bad_var(list_name, *list, "names no node");
  c.nodes = std::move(*nodes);
  c.master_addr = c.nodes.front();
  if (const auto* step = get(env, "SLURM_STEP_NODELIST")) {
    auto step_nodes = expand_hostlist(*step);
    if (!step_nodes) return bad_input("SLURM_STEP_NODELIST: " + step_nodes.error().message);
    if (step_nodes->empty()) return bad_var("SLURM_STEP_NODELIST", *step, "names no node");
    c.master_addr = step_nodes->front();
  }

  // An explicit MASTER_PORT (exported in the batch script, so every task sees the same one)
  // wins: it is how two concurrent steps of one job avoid sharing a port.
  if (const auto* port = get(env, "MASTER_PORT")) {
    auto p = parse_uint(*port);
    if (!p || *p < 1 || *p > 65535) return bad_var("MASTER_PORT", *port, "expected 1-65535");
    c.master_port = static_cast<int>(*p);
  } else {
    c.master_port = master_port_for_job(*job_number);
  }

  auto world = int_var(env, {"SLURM_NTASKS", "SLURM_NPROCS"}, 1, 1);
  auto rank = int_var(env, {"SLURM_PROCID"}, 0);
  auto local_rank = int_var(env, {"SLURM_LOCALID"}, 0);
  auto node_rank = int_var(env, {"SLURM_NODEID"}, 0);
  auto nnodes =
      int_var(env, {"SLURM_NNODES", "SLURM_JOB_NUM_NODES"}, static_cast<int>(c.nodes.size()), 1);
  for (const auto* r : {&world, &rank, &local_rank, &node_rank, &nnodes})
    if (!*r) return r->error();
  c.world_size = *world;
  c.rank = *rank;
  c.local_rank = *local_rank;
  c.node_rank = *node_rank;
  c.nnodes = *nnodes;
  if (c.rank >= c.world_size)
    return bad_input(cat({"SLURM_PROCID=", std::to_string(c.rank),
                          " is not below SLURM_NTASKS=", std::to_string(c.world_size)}));
  if (c.node_rank >= c.nnodes)
    return bad_input(cat({"SLURM_NODEID=", std::to_string(c.node_rank),
                          " is not below SLURM_NNODES=", std::to_string(c.nnodes)}));

  // Tasks on this node: the step's layout when srun gave one, else the job's, else the
  // requested --ntasks-per-node, else an even split.
  auto [tpn_name, tpn] = first_set(env, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
  if (tpn) {
    auto counts = parse_tasks_per_node(*tpn);
    if (!counts) return bad_input(cat({tpn_name, ": ", counts.error().message}));
    if (static_cast<size_t>(c.node_rank) >= counts->size())
      return bad_var(tpn_name, *tpn,
                     "describes " + std::to_string(counts->size()) +
                         " nodes but SLURM_NODEID=" + std::to_string(c.node_rank));
    c.local_world_size = (*counts)[static_cast<size_t>(c.node_rank)];
  } else if (get(env, "SLURM_NTASKS_PER_NODE")) {
    auto n = int_var(env, {"SLURM_NTASKS_PER_NODE"}, 1, 1);
    if (!n) return n.error();
    c.local_world_size = *n;
  } else {
    c.local_world_size = (c.world_size + c.nnodes - 1) / c.nnodes;
  }
  if (c.local_world_size < 1 || c.local_rank >= c.local_world_size)
    return bad_input(cat({"SLURM_LOCALID=", std::to_string(c.local_rank), " does not fit ",
                          std::to_string(c.local_world_size), " tasks on this node"}));

  if (auto [gname, gpus] = first_set(env, {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}); gpus)
    c.gpus = split_list(*gpus);
  return std::optional<SlurmContext>(std::move(c));
}

}  // namespace anygpu
