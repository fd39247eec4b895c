// `anygpu preflight`: a short framework test on each selected device before a job, launched
// through the same selection, locks and launch plan as `anygpu run --nproc-per-node` (one
// process per device; on a host without accelerators, N processes on the CPU). Each process
// runs `python -m anygpu.torch.preflight DIR` and writes its device's figures; preflight judges
// them and prints one verdict per device. With --container IMAGE the processes run in the image,
// as `run --container` starts it (the image's torch and anygpu package are the ones tested). A
// device another run holds, or one that is runtime-suspended, is skipped with the reason instead of
// waited for or woken. Exit 0: every tested device ok; 1: one failed; 2: bad input; 3: nothing
// could be tested; 124: the devices were taken between the check and the lock; 125: anygpu could
// not launch.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

#include "app/locked_select.h"
#include "app/on_host.h"
#include "cli/command.h"
#include "cli/launch_request.h"
#include "launch/executor.h"
#include "launch/host_facts.h"
#include "launch/plan.h"
#include "launch/supervise.h"
#include "preflight/preflight_result.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

constexpr long kDefaultTimeoutSeconds = 300;

struct PreflightFlags {
  std::string config, devices, python = "python3";
  std::string nproc;  // CPU processes when the host has no accelerator selected
  std::string master_port;
  std::string timeout;
  std::string results;  // keep the processes' rank files here
  // --container: the test runs in IMAGE, started as `run --container` starts it.
  std::string image, engine, user = "1001:1001";
  std::vector<std::string> engine_args;
  bool container_given = false;
};

int preflight_failed(const std::string& message) {
  std::fprintf(stderr, "anygpu: %s\n", escape_control(message).c_str());
  return kExitRunFailed;
}

Result<long> whole_number(const std::string& option, const std::string& text, long lo, long hi,
                          long fallback) {
  if (text.empty()) return fallback;
  auto v = parse_int(text);
  if (!v || *v < lo || *v > hi || text.starts_with('+'))
    return bad_input(cat({option, " '", escape_control(text), "': expected a whole number in ",
                          std::to_string(lo), "..", std::to_string(hi)}));
  return static_cast<long>(*v);
}

// The units of the selection, each with why it is skipped (held by another run, suspended).
std::vector<PreflightUnit> units_of(const Selection& s, const std::optional<LockHolders>& held,
                                    int cpu_processes, bool replayed) {
  std::vector<PreflightUnit> units;
  if (s.devices.empty()) {
    for (int r = 0; r < cpu_processes; ++r) {
      PreflightUnit u;
      u.id = cat({"cpu:", std::to_string(r)});
      u.name = "CPU";
      u.cpu = true;
      units.push_back(u);
    }
    return units;
  }
  const Registry& registry = Registry::builtin();
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const Device& d = s.devices[i];
    const Partition* p = s.partition_of(i);
    PreflightUnit u;
    u.pci_bus_id = d.pci.address.str();
    u.id = p ? cat({*u.pci_bus_id, "/", std::to_string(p->index)}) : *u.pci_bus_id;
    u.name = d.name;
    u.spec = registry.device(d.vendor, d.pci.device_id);
    u.partition = p != nullptr;
    std::string key = unit_lock_key(*u.pci_bus_id, p ? std::optional<int>(p->index) : std::nullopt);
    std::string whole = unit_lock_key(*u.pci_bus_id);
    const LockHolder* h = nullptr;
    if (held && held->count(key)) h = &held->at(key);
    // A whole device is held when any of its partitions is (its key is then held shared).
    if (held && !h && held->count(whole) && (p == nullptr || !held->at(whole).shared))
      h = &held->at(whole);
    if (h)
      u.skip = cat({"held by another run, ", holder_text(*h),
                    ": a test would compete with its work; run preflight before the job"});
    else if (d.status == DeviceStatus::suspended)
      u.skip = "runtime-suspended: a test would wake it; it is tested once in use";
    else if (replayed)
      u.skip = "a replayed host (--root): its devices exist only in the tree";
    units.push_back(u);
  }
  return units;
}

// The selection made again over the units to test only (explicit, so none is swapped).
Result<Selection> reselect(const SelectOutcome& o, const std::vector<PreflightUnit>& units) {
  AcceleratorConfig config = o.config;
  std::vector<std::string> ids;
  for (const auto& u : units)
    if (!u.skip) ids.push_back(u.id);
  auto applied = apply_devices_option(config, join(ids, ","));
  if (!applied) return applied.error();
  SelectInputs inputs = o.inputs;
  inputs.processes_per_node.reset();
  return select_devices(o.inventory, config, inputs);
}

// --results DIR, created, holding no results yet; "" when not given.
Result<std::string> kept_results_dir(const std::string& wanted) {
  if (wanted.empty()) return std::string();
  {
    std::error_code ec;
    std::filesystem::create_directories(wanted, ec);
    if (ec) return bad_input(cat({"--results ", escape_control(wanted), ": ", ec.message()}));
    for (const auto& e : std::filesystem::directory_iterator(wanted, ec))
      if (e.path().filename().string().starts_with("rank-"))
        return bad_input(cat({"--results ", escape_control(wanted), ": already holds results (",
                              e.path().filename().string(), "); name an empty directory"}));
    if (ec) return bad_input(cat({"--results ", escape_control(wanted), ": ", ec.message()}));
    return std::filesystem::absolute(wanted).lexically_normal().string();
  }
}

// A private directory under TMPDIR (mode 0700), removed afterwards.
Result<std::string> private_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = cat({tmp && *tmp ? tmp : "/tmp", "/anygpu-preflight.XXXXXX"});
  if (!::mkdtemp(templ.data()))
    return host_error(cat({"cannot create ", templ, ": ", std::strerror(errno)}));
  return templ;
}

// Where a container's processes write: a directory inside the private one, writable by the
// container's user whatever host uid the engine maps it to (mode 1777, like /tmp). Nobody else
// on the host reaches it: its parent is 0700. The container sees it as /workspace.
Result<std::string> container_drop_dir(const std::string& private_parent) {
  std::string dir = cat({private_parent, "/results"});
  if (::mkdir(dir.c_str(), 0700) != 0 || ::chmod(dir.c_str(), 01777) != 0)
    return host_error(cat({"cannot create ", dir, ": ", std::strerror(errno)}));
  return dir;
}

// The rank files the processes wrote, copied into --results DIR.
Result<bool> keep_rank_files(const std::string& from, const std::string& to) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(from, ec)) {
    auto name = e.path().filename().string();
    if (!name.starts_with("rank-") || !name.ends_with(".json") || !e.is_regular_file()) continue;
    std::filesystem::copy_file(e.path(), cat({to, "/", name}), ec);
    if (ec) break;
  }
  if (ec) return host_error(cat({"--results ", escape_control(to), ": ", ec.message()}));
  return true;
}

// How the launch ended, for a unit whose process wrote nothing.
std::string launch_end(int code, bool timed_out, long timeout, const std::string& python,
                       bool in_container) {
  if (timed_out) return cat({"stopped after the --timeout of ", std::to_string(timeout), " s"});
  std::string how = code > 128 && code < 128 + 65
                        ? cat({"the launch ended by signal ", std::to_string(code - 128)})
                        : cat({"the launch exited with ", std::to_string(code)});
  // The usual cause: the interpreter lacks torch or this package (its own error is above).
  return cat({how, "; ", python, " must import torch and anygpu.torch.preflight",
              in_container ? " in the image" : ""});
}

int preflight(const PreflightFlags& f, const GlobalOptions& g) {
  auto timeout = whole_number("--timeout", f.timeout, 10, 86400, kDefaultTimeoutSeconds);
  if (!timeout) return fail(timeout.error());
  auto cpu_processes = whole_number("--nproc-per-node", f.nproc, 1, 256, 1);
  if (!cpu_processes) return fail(cpu_processes.error());
  auto port = whole_number("--master-port", f.master_port, 1, 65535, 0);
  if (!port) return fail(port.error());
  if (!f.container_given && (!f.engine.empty() || !f.engine_args.empty()))
    return fail(bad_input("--engine and --engine-arg need --container IMAGE"));
  auto host_options = g.host_options();
  if (!host_options) return fail(host_options.error());
  Environment environment = current_environment();
  auto slurm = slurm_allocation(environment);
  if (!slurm) return fail(slurm.error());
  std::vector<std::string> notes;
  LaunchRequestInputs inputs;
  inputs.config = f.config;
  inputs.devices = f.devices;
  inputs.python = f.python;
  inputs.check_contracts = false;  // a hardware test: the job's contract is the job's
  auto request = launch_select_request(inputs, environment, *slurm, notes);
  if (!request) return fail(request.error());

  HostRoot host(*host_options);
  Diagnostics found;
  auto outcome = select_on_host(host, *request, found);
  report(g, found);
  if (!outcome) return fail(outcome.error());
  auto held = lock_holders_now(host.is_real_root(), environment, ::geteuid());
  if (!held) return fail(held.error());
  auto units =
      units_of(*outcome->selection, *held, static_cast<int>(*cpu_processes), !host.is_real_root());
  for (const auto& r : outcome->selection->reasons) report(g, Diagnostic::note(r));

  std::vector<PreflightUnit> tested;
  for (const auto& u : units)
    if (!u.skip) tested.push_back(u);
  std::vector<std::optional<RankResult>> results(units.size());
  std::string missing_why;
  if (!tested.empty()) {
    SelectOutcome chosen = *outcome;
    if (!outcome->selection->devices.empty() && tested.size() != units.size()) {
      auto again = reselect(*outcome, units);
      if (!again) return fail(again.error());
      chosen.selection = std::move(*again);
    }
    std::vector<UnitLock> locks;
    if (!chosen.selection->devices.empty() && locks_apply(host.is_real_root(), environment)) {
      auto dir = lock_directory(environment, ::geteuid());
      if (!dir) return preflight_failed(dir.error().message);
      auto locked = lock_selection(chosen, *dir, LockWait{}, ::geteuid());
      if (!locked) return preflight_failed(locked.error().message);
      if (!locked->locked) {
        std::fprintf(stderr, "anygpu: %s\n", escape_control(locked->busy).c_str());
        return kExitUnitsBusy;
      }
      locks = std::move(locked->locked->locks);
    }
    auto kept = kept_results_dir(f.results);
    if (!kept) return fail(kept.error());
    // Natively the processes write into --results DIR itself, else into a private directory.
    std::string removed;  // the private directory, removed at the end
    std::string out = *kept;
    if (out.empty() || f.container_given) {
      auto dir = private_dir();
      if (!dir) return fail(dir.error());
      removed = out = *dir;
    }
    if (f.container_given) {
      auto drop = container_drop_dir(removed);
      if (!drop) {
        std::error_code ec;
        std::filesystem::remove_all(removed, ec);
        return fail(drop.error());
      }
      out = *drop;
    }
    LaunchOptions options;
    options.command = {f.python, "-m", "anygpu.torch.preflight",
                       f.container_given ? std::string("/workspace") : out};
    if (f.container_given) {
      options.image = f.image;
      if (!f.engine.empty()) options.engine = f.engine;
      options.engine_args = f.engine_args;
      options.user = f.user;
    }
    options.nproc_per_node =
        chosen.selection->devices.empty() ? std::to_string(*cpu_processes) : std::string("auto");
    if (*port) options.master_port = static_cast<int>(*port);
    HostFacts facts = gather_host_facts(host, *chosen.selection, options, environment, notes);
    if (f.container_given) facts.cwd = out;  // the container's /workspace
    auto plan = plan_launch(*chosen.selection, options, facts, environment, *slurm);
    auto remove_private = [&] {
      std::error_code ec;
      if (!removed.empty()) std::filesystem::remove_all(removed, ec);
    };
    if (!plan) {
      remove_private();
      return preflight_failed(plan.error().message);
    }
    for (const auto& n : notes) report(g, Diagnostic::note(n));
    for (const auto& n : plan->notes) report(g, Diagnostic::note(n));

    SupervisedCommand command;
    command.argv = plan->argv;
    command.env = plan_environment(*plan, environment);
    command.search_path = caller_path(environment);
    command.caller_continues = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(*timeout);
    bool timed_out = false;
    command.on_tick = [&] {
      if (!timed_out && std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        ::kill(::getpid(), SIGTERM);  // the supervisor forwards it to the launch
      }
    };
    std::fflush(stdout);
    std::fflush(stderr);
    int code = supervise(command);
    missing_why = launch_end(code, timed_out, *timeout, f.python, f.container_given);
    auto read = read_rank_results(out, static_cast<int>(tested.size()));
    Result<bool> copied = true;
    if (read && !kept->empty() && out != *kept) copied = keep_rank_files(out, *kept);
    remove_private();
    if (!read) return fail(read.error());
    if (!copied) return fail(copied.error());
    // Rank r tested the r-th unit tested (one process per unit, in selection order).
    for (size_t i = 0, r = 0; i < units.size(); ++i)
      if (!units[i].skip) results[i] = std::move((*read)[r++]);
  }
  std::vector<UnitVerdict> verdicts;
  for (size_t i = 0; i < units.size(); ++i)
    verdicts.push_back(judge_unit(units[i], results[i], missing_why));
  if (g.json)
    print_json(g, preflight_json(verdicts));
  else
    print_text(preflight_text(verdicts));
  return preflight_exit_code(verdicts);
}

}  // namespace

Command preflight_command() {
  return {"preflight", "a short framework test on each selected device, one verdict per device",
          [](CLI::App& app) {
            auto f = std::make_shared<PreflightFlags>();
            app.add_option("--config", f->config,
                           "accelerator config (default ./accelerator-config.yaml)")
                ->type_name("FILE");
            app.add_option("--devices", f->devices,
                           "all, a count of units or a list (0,1 / 0000:18:00.0 / 0:1 / "
                           "MIG-<uuid>); replaces the config's devices:")
                ->type_name("UNITS");
            app.add_option("--python", f->python,
                           "interpreter that runs the test (needs torch and anygpu)")
                ->type_name("PATH");
            app.add_option("--nproc-per-node", f->nproc,
                           "processes when the selection is the CPU (default 1; 2 or more "
                           "also test the all-reduce)")
                ->type_name("N");
            app.add_option("--master-port", f->master_port, "torchrun rendezvous port")
                ->type_name("PORT");
            app.add_option("--timeout", f->timeout,
                           "seconds before the test processes are stopped (default 300)")
                ->type_name("SECONDS");
            app.add_option("--container", f->image,
                           "run the test in a container from IMAGE (as run --container; the "
                           "image needs torch and anygpu)")
                ->type_name("IMAGE")
                ->each([f](const std::string&) { f->container_given = true; });
            app.add_option("--engine", f->engine,
                           "podman or docker (default: podman when on PATH, else docker)")
                ->type_name("ENGINE");
            app.add_option("--engine-arg", f->engine_args,
                           "extra engine option, before the image (repeatable)")
                ->type_name("ARG")
                ->allow_extra_args(false);
            app.add_option("--user", f->user, "container user (default 1001:1001)")
                ->type_name("UID:GID");
            app.add_option("--results", f->results,
                           "keep each process's rank-N.json in DIR (default: removed)")
                ->type_name("DIR");
            return [f](const GlobalOptions& g) { return preflight(*f, g); };
          }};
}

}  // namespace anygpu::cli
