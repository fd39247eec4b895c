#include "util/env_vars.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr unsigned kAll = kEnvCli | kEnvCAbi | kEnvPython;
constexpr uint64_t kIntMax = 2147483647;  // what torch and the launchers store these in
constexpr uint64_t kSlurmMax = 1 << 24;   // far beyond any real job (cluster/slurm_env.cc)

// A row whose empty value is a value, judged by its kind: ANYGPU_LIBRARY (an explicit choice),
// and Slurm's, which Slurm never exports empty and `anygpu run` (cluster/slurm_env.cc) refuses
// empty, so Python refuses them too.
constexpr EnvVariable never_empty(EnvVariable row) {
  row.empty_is_unset = false;
  return row;
}

// Table order is check order: the first refusal is the one reported.
constexpr EnvVariable kRows[] = {
    // What steers anygpu itself: checked at every CLI start and every C ABI call.
    {"ANYGPU_ROOT", EnvKind::directory, kAll, true, "a directory",
     "read the host beneath this directory instead of / (as --root)"},
    {"ANYGPU_NO_LIBS", EnvKind::boolean, kAll, true, "1, 0, true, false, yes or no (any case)",
     "1, true or yes: never load vendor libraries (as --no-libs)"},
    {"ANYGPU_LIB_TIMEOUT_MS", EnvKind::integer, kAll, true, "milliseconds from 1 to 600000",
     "deadline for vendor library calls (as --lib-timeout; default 1000)", 1, 600000},
    {"ANYGPU_LOG", EnvKind::keyword, kEnvCli, true, "debug",
     "debug: diagnostics on stderr (as --verbose); the library writes none", 0, 0, "debug"},
    {"ANYGPU_REGISTRY", EnvKind::directory, kAll, true,
     "a directory holding vendors.yaml and devices.yaml",
     "use this vendor registry instead of the built-in one (validated as a whole)"},
    {"ANYGPU_WHEELS", EnvKind::path, kAll, true, "a file in data/wheels.yaml's format",
     "use this framework build table (wheel, check, doctor) instead of the built-in one"},
    {"ANYGPU_WORKER", EnvKind::executable, kEnvCAbi | kEnvPython, true,
     "an absolute path to an executable file",
     "the anygpu binary libanygpu starts to load vendor libraries (default: the CLI beside or "
     "installed with the library; the CLI is its own worker)"},
    // Where `anygpu run` locks the devices it selects (host/unit_lock.h).
    {"ANYGPU_LOCK_DIR", EnvKind::directory, kEnvCli, false, "a directory",
     "anygpu run locks its devices here instead of /run/anygpu/locks (root) or "
     "$XDG_RUNTIME_DIR/anygpu/locks; also with --root, which otherwise locks nothing"},
    // The Python package's own.
    never_empty({"ANYGPU_LIBRARY", EnvKind::path, kEnvPython, false,
                 "a path to libanygpu.so, or a file name the dynamic loader finds (set but "
                 "blank: an error)",
                 "the library the Python package loads; no other place is tried"}),
    // The selection `anygpu run` and `eval "$(anygpu select)"` export, read back by Python.
    {"ANYGPU_VENDOR", EnvKind::name, kEnvPython, false,
     "a vendor id (a lower-case letter, then lower-case letters, digits, _ . -)",
     "selected vendor (anygpu select writes it)"},
    {"ANYGPU_BACKEND", EnvKind::name, kEnvPython, false,
     "a backend id (a lower-case letter, then lower-case letters, digits, _ . -)",
     "selected backend (default: the vendor)"},
    {"ANYGPU_TORCH_DEVICE", EnvKind::torch_device, kEnvPython, false,
     "a torch device type of the registry", "torch device type of the selection"},
    {"ANYGPU_DIST_BACKEND", EnvKind::name, kEnvPython, false,
     "a torch.distributed backend name (a lower-case letter, then lower-case letters, digits, "
     "_ . -)",
     "torch.distributed backend (default: the device type's)"},
    {"ANYGPU_DEVICES", EnvKind::list, kEnvPython, false,
     "comma-separated device ids without spaces", "selected devices (PCI bus ids)"},
    {"ANYGPU_NUM_WORKERS", EnvKind::integer, kEnvPython, false,
     "a whole number from 0 to 2147483647",
     "data-loader workers per process (anygpu run derives it from the devices' CPUs)", 0, kIntMax},
    {"ANYGPU_RENDEZVOUS_TIMEOUT", EnvKind::integer, kEnvPython, false,
     "seconds from 1 to 2147483647",
     "how long init_distributed() waits for every process to join (default 600)", 1, kIntMax},
    // `anygpu run --debug-hangs` sets them for anygpu.torch's beats and stack dumps.
    {"ANYGPU_HANG_DIR", EnvKind::directory, kEnvPython, false, "a directory",
     "anygpu.torch writes its progress beat and, on a signal, its Python stacks here (anygpu run "
     "--debug-hangs sets it)"},
    {"ANYGPU_HANG_SECONDS", EnvKind::integer, kEnvPython, false, "seconds from 1 to 31536000",
     "the stall threshold recorded in each beat (anygpu run --debug-hangs=SECONDS)", 1, 31536000},
    // torchrun's variables (anygpu run sets them too).
    {"RANK", EnvKind::integer, kEnvPython, false, "a whole number from 0 to 2147483647",
     "this process's rank", 0, kIntMax},
    {"WORLD_SIZE", EnvKind::integer, kEnvPython, false, "a whole number from 1 to 2147483647",
     "processes in the job", 1, kIntMax},
    {"LOCAL_RANK", EnvKind::integer, kEnvPython, false, "a whole number from 0 to 2147483647",
     "this process's rank on its node: the device it uses", 0, kIntMax},
    {"LOCAL_WORLD_SIZE", EnvKind::integer, kAll, false, "a whole number from 1 to 65536",
     "processes on this node (select's default --nproc-per-node)", 1, 65536},
    {"MASTER_ADDR", EnvKind::text, kEnvPython, false, "a host name or address",
     "host of the rendezvous (rank 0)"},
    never_empty({"MASTER_PORT", EnvKind::integer, kEnvCli | kEnvPython, false, "1-65535",
                 "port of the rendezvous (inside Slurm: default 20000 + job id % 10000)", 1,
                 65535}),
    {"TORCHELASTIC_USE_AGENT_STORE", EnvKind::keyword, kEnvPython, false, "True or False",
     "True: join torchrun's agent store instead of serving one", 0, 0, "True False"},
    {"TORCHELASTIC_RESTART_COUNT", EnvKind::integer, kEnvPython, false,
     "a whole number from 0 to 2147483647", "torchrun's restart attempt (the store's prefix)", 0,
     kIntMax},
    // Slurm's, as srun and sbatch export them (`anygpu run` and init_distributed() read them).
    never_empty({"SLURM_JOB_ID", EnvKind::integer, kEnvCli | kEnvPython, false,
                 "the numeric job id", "the allocation this process runs in", 0, UINT64_MAX}),
    never_empty({"SLURM_JOB_NODELIST", EnvKind::hostlist, kEnvCli | kEnvPython, false,
                 "a Slurm hostlist", "the job's nodes; the first is the master"}),
    never_empty({"SLURM_NODELIST", EnvKind::hostlist, kEnvCli, false, "a Slurm hostlist",
                 "older name of SLURM_JOB_NODELIST"}),
    never_empty({"SLURM_STEP_NODELIST", EnvKind::hostlist, kEnvCli | kEnvPython, false,
                 "a Slurm hostlist", "the step's nodes; the first is the master"}),
    never_empty({"SLURM_PROCID", EnvKind::integer, kEnvCli | kEnvPython, false,
                 "a whole number from 0 to 16777216", "this task's rank", 0, kSlurmMax}),
    never_empty({"SLURM_LOCALID", EnvKind::integer, kEnvCli | kEnvPython, false,
                 "a whole number from 0 to 16777216", "this task's rank on its node", 0,
                 kSlurmMax}),
    never_empty({"SLURM_NODEID", EnvKind::integer, kEnvCli, false,
                 "a whole number from 0 to 16777216", "this node's index in the job", 0,
                 kSlurmMax}),
    never_empty({"SLURM_NTASKS", EnvKind::integer, kEnvCli | kEnvPython, false,
                 "a whole number from 1 to 16777216", "tasks in the job", 1, kSlurmMax}),
    never_empty({"SLURM_NPROCS", EnvKind::integer, kEnvCli | kEnvPython, false,
                 "a whole number from 1 to 16777216", "older name of SLURM_NTASKS", 1, kSlurmMax}),
    never_empty({"SLURM_NNODES", EnvKind::integer, kEnvCli | kEnvPython, false,
                 "a whole number from 1 to 16777216", "nodes in the job", 1, kSlurmMax}),
    never_empty({"SLURM_JOB_NUM_NODES", EnvKind::integer, kEnvCli, false,
                 "a whole number from 1 to 16777216", "newer name of SLURM_NNODES", 1, kSlurmMax}),
    never_empty({"SLURM_NTASKS_PER_NODE", EnvKind::integer, kEnvCli, false,
                 "a whole number from 1 to 16777216",
                 "tasks per node requested (--ntasks-per-node)", 1, kSlurmMax}),
    never_empty({"SLURM_TASKS_PER_NODE", EnvKind::tasks_per_node, kEnvCli, false,
                 "Slurm's per-node task counts, e.g. 2(x3),1", "the job's tasks on each node"}),
    never_empty({"SLURM_STEP_TASKS_PER_NODE", EnvKind::tasks_per_node, kEnvCli, false,
                 "Slurm's per-node task counts, e.g. 2(x3),1", "the step's tasks on each node"}),
    never_empty({"SLURM_STEP_NUM_TASKS", EnvKind::integer, kEnvPython, false,
                 "a whole number from 1 to 16777216",
                 "tasks in the step (srun started this process)", 1, kSlurmMax}),
    never_empty({"SLURM_STEP_NUM_NODES", EnvKind::integer, kEnvPython, false,
                 "a whole number from 1 to 16777216", "nodes in the step", 1, kSlurmMax}),
    {"SLURM_STEP_GPUS", EnvKind::indices, kEnvCli, false,
     "comma-separated GPU indices from 0 to 65535", "the GPUs Slurm gave the step", 0, 65535},
    {"SLURM_JOB_GPUS", EnvKind::indices, kEnvCli, false,
     "comma-separated GPU indices from 0 to 65535", "the GPUs Slurm gave the job", 0, 65535},
    // slurmd's, for the HealthCheckProgram, Prolog and Epilog (`health --slurm`).
    {"SLURMD_NODENAME", EnvKind::text, kEnvCli, false, "a Slurm node name",
     "the node health --slurm drains (default: the host name up to its first dot)"},
    // Everyone's.
    {"NO_COLOR", EnvKind::any, kEnvCli, false, "any value",
     "set and not empty: no colour in human output (no-color.org)"},
    {"PATH", EnvKind::any, kEnvCli, false, "any value",
     "where anygpu run looks for the command (as execvp does)"},
    {"LD_LIBRARY_PATH", EnvKind::any, kEnvCli, false, "any value",
     "doctor checks the vendor libraries the dynamic loader would find through "
     "it"},
    {"ROCR_VISIBLE_DEVICES", EnvKind::any, kEnvCli, false, "any value",
     "ROCm's device mask; HIP_VISIBLE_DEVICES re-indexes it, so anygpu run sets "
     "only one: inside "
     "Slurm it keeps this one, elsewhere it unsets it"},
    {"XDG_RUNTIME_DIR", EnvKind::any, kEnvCli, false, "any value",
     "an absolute path: anygpu run's lock directory is beneath it (not as root)"},
    {"CONTAINERS_STORAGE_CONF", EnvKind::any, kEnvCli, false, "any value",
     "image check: the storage.conf whose graphroot holds images looked up by reference "
     "(default /etc/containers/storage.conf)"},
    {"ANYGPU_DOCKER_ROOT", EnvKind::directory, kEnvCli, false, "a directory",
     "image check and run --container: the Docker data root whose overlay2 image store is read "
     "by reference (default: data-root of /etc/docker/daemon.json, else /var/lib/docker)"},
    {"ANYGPU_CACHE_DIR", EnvKind::directory, kEnvCli, false, "a directory",
     "image check and run --container keep what images hold (by image id) in images/ beneath "
     "it (default /var/cache/anygpu as root, else $XDG_CACHE_HOME/anygpu or ~/.cache/anygpu)"},
    {"XDG_CACHE_HOME", EnvKind::any, kEnvCli, false, "any value",
     "an absolute path: image check's cache is beneath it (not as root, without "
     "ANYGPU_CACHE_DIR)"},
    {"XDG_DATA_HOME", EnvKind::any, kEnvCli, false, "any value",
     "image check, not as root and without a graphroot: containers-storage is beneath it"},
    {"HOME", EnvKind::any, kEnvCli, false, "any value",
     "image check, not as root and without a graphroot or XDG_DATA_HOME: containers-storage "
     "is ~/.local/share/containers/storage"},
    {"TMPDIR", EnvKind::any, kEnvCli, false, "any value",
     "preflight: its test processes write their results in a private directory beneath it "
     "unless --results (default /tmp)"},
    {"CXX", EnvKind::any, kEnvPython, false, "any value",
     "the C++ compiler anygpu.torch's compile check tries (default g++)"},
};

bool is_name(std::string_view s) {
  if (s.empty() || s.front() < 'a' || s.front() > 'z') return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

bool is_list(std::string_view s) {
  for (auto item : split(s, ','))
    for (char c : trim(item))
      if (c <= ' ' || c == 0x7f) return false;
  return true;
}

bool is_indices(std::string_view s, uint64_t max) {
  for (auto item : split(s, ',')) {
    if (trim(item).empty()) continue;
    auto n = parse_int(item);  // as launch/slurm_map.cc reads them
    if (!n || *n < 0 || static_cast<uint64_t>(*n) > max) return false;
  }
  return true;
}

bool is_word(std::string_view words, std::string_view s) {
  for (auto w : split(words, ' '))
    if (w == s) return true;
  return false;
}

Result<bool> check_file(const EnvVariable& row, std::string_view value) {
  std::string path(value);
  struct stat st {};
  if (row.kind == EnvKind::directory) {
    if (::stat(path.c_str(), &st) != 0)
      return bad_input(
          env_refusal(row.name, value, cat({"not a directory (", std::strerror(errno), ")"})));
    if (!S_ISDIR(st.st_mode)) return bad_input(env_refusal(row.name, value, "not a directory"));
    return true;
  }
  // executable
  if (path.front() != '/' || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      ::access(path.c_str(), X_OK) != 0)
    return bad_input(env_refusal(row.name, value, cat({"expected ", row.accepted})));
  return true;
}

}  // namespace

std::string_view env_kind_name(EnvKind kind) {
  switch (kind) {
    case EnvKind::directory:
      return "directory";
    case EnvKind::executable:
      return "executable";
    case EnvKind::path:
      return "path";
    case EnvKind::boolean:
      return "boolean";
    case EnvKind::integer:
      return "integer";
    case EnvKind::keyword:
      return "keyword";
    case EnvKind::name:
      return "name";
    case EnvKind::list:
      return "list";
    case EnvKind::indices:
      return "indices";
    case EnvKind::text:
      return "text";
    case EnvKind::any:
      return "any";
    case EnvKind::torch_device:
      return "torch_device";
    case EnvKind::hostlist:
      return "hostlist";
    case EnvKind::tasks_per_node:
      return "tasks_per_node";
  }
  return "unknown";
}

std::span<const EnvVariable> env_variables() {
  return kRows;
}

const EnvVariable* find_env_variable(std::string_view name) {
  for (const auto& row : kRows)
    if (row.name == name) return &row;
  return nullptr;
}

std::string env_refusal(std::string_view name, std::string_view value, std::string_view why) {
  return cat({name, "=\"", escape_control(value), "\": ", why});
}

Result<std::optional<EnvValue>> parse_env_value(const EnvVariable& row, std::string_view value) {
  using Parsed = std::optional<EnvValue>;
  if (value.empty() && row.empty_is_unset) return Parsed();
  auto refuse = [&] {
    return bad_input(env_refusal(row.name, value, cat({"expected ", row.accepted})));
  };
  EnvValue out;
  out.text = std::string(trim(value));
  switch (row.kind) {
    case EnvKind::directory:
    case EnvKind::executable:
      if (auto ok = check_file(row, value); !ok) return ok.error();
      out.text = std::string(value);
      break;
    case EnvKind::path:
      if (trim(value).empty()) return refuse();
      out.text = std::string(value);
      break;
    case EnvKind::boolean: {
      std::string v = to_lower(value);
      if (v == "1" || v == "true" || v == "yes")
        out.flag = true;
      else if (v == "0" || v == "false" || v == "no")
        out.flag = false;
      else
        return refuse();
      break;
    }
    case EnvKind::integer: {
      auto n = parse_uint(value);
      if (!n || *n < row.min || *n > row.max) return refuse();
      out.number = *n;
      break;
    }
    case EnvKind::keyword:
      if (!is_word(row.words, value)) return refuse();
      break;
    case EnvKind::name:
      if (!is_name(value)) return refuse();
      break;
    case EnvKind::list:
      if (!is_list(value)) return refuse();
      break;
    case EnvKind::indices:
      if (!is_indices(value, row.max)) return refuse();
      break;
    case EnvKind::any:
      out.text = std::string(value);
      break;
    case EnvKind::text:
    case EnvKind::torch_device:
    case EnvKind::hostlist:
    case EnvKind::tasks_per_node:
      if (has_control_char(value)) return refuse();
      break;
  }
  return Parsed(std::move(out));
}

Result<std::optional<EnvValue>> read_env(std::string_view name) {
  const EnvVariable* row = find_env_variable(name);
  if (!row) return internal_error(cat({name, ": not in the table of environment variables"}));
  const char* value = std::getenv(std::string(name).c_str());
  if (!value) return std::optional<EnvValue>();
  return parse_env_value(*row, value);
}

Result<bool> check_steering_env(std::string* refused) {
  for (const auto& row : kRows) {
    if (!row.steers) continue;
    if (auto v = read_env(row.name); !v) {
      if (refused) *refused = row.name;
      return v.error();
    }
  }
  return true;
}

}  // namespace anygpu
