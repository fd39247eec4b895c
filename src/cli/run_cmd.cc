// `anygpu run`: check, select, plan, execute. Every failure of anygpu itself exits 125, so a
// caller can tell it from the command's own status (126/127: not executable / not found).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/image_gate.h"
#include "app/locked_select.h"
#include "app/on_host.h"
#include "cli/command.h"
#include "cli/launch_request.h"
#include "contract/check.h"
#include "launch/command_line.h"
#include "launch/executor.h"
#include "launch/hang_watch.h"
#include "launch/host_facts.h"
#include "launch/plan.h"
#include "launch/plan_json.h"
#include "launch/shell_quote.h"
#include "render/json_text.h"
#include "select/select.h"
#include "util/env_vars.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct RunFlags {
  bool dry_run = false;
  bool no_check = false;
  std::string spec, config, python = "python3";
  std::string image, engine, user = "1001:1001", shm_size = "8g";
  std::vector<std::string> engine_args;
  bool read_only = false;
  bool container_given = false;  // --container '' is an error, not a native run
  std::string nproc, nnodes, node_rank, master_addr, master_port;
  std::vector<std::string> command;
  bool no_lock = false;
  bool wait_given = false;
  std::string wait;     // --wait=DURATION; empty: no limit
  std::string devices;  // --devices: replaces the config's devices: (a Slurm allocation governs)
  bool debug_hangs_given = false;
  std::string debug_hangs;  // --debug-hangs=SECONDS; empty: the default
  std::string hang_dir;
};

int run_failed(const std::string& message) {
  std::fprintf(stderr, "anygpu: %s\n", escape_control(message).c_str());
  return kExitRunFailed;
}

Result<std::optional<int>> int_option(const std::string& name, const std::string& text, long lo,
                                      long hi) {
  if (text.empty()) return std::optional<int>();
  auto v = parse_int(text);
  if (!v || *v < lo || *v > hi)
    return bad_input(cat({name, " '", text, "': expected a whole number in ", std::to_string(lo),
                          "..", std::to_string(hi)}));
  return std::optional<int>(static_cast<int>(*v));
}

constexpr uint64_t kDefaultHangSeconds = 300;

// --debug-hangs[=SECONDS] and --hang-dir: the directory is made ready (created, writable, free
// of another launch's beats) before anything starts; a dry run only names it.
Result<std::optional<HangDebug>> hang_debug(const RunFlags& f) {
  using Debug = std::optional<HangDebug>;
  if (!f.debug_hangs_given) {
    if (!f.hang_dir.empty()) return bad_input("--hang-dir needs --debug-hangs");
    return Debug();
  }
  // Said before the directory is made; the planner holds the same rules.
  if (f.nproc.empty())
    return bad_input(
        "--debug-hangs needs --nproc-per-node (1 for a single process): anygpu "
        "watches the ranks while it supervises torchrun");
  if (f.container_given)
    return bad_input("--debug-hangs watches native launches only, not a --container one");
  HangDebug d;
  d.seconds = kDefaultHangSeconds;
  if (!f.debug_hangs.empty()) {
    auto s = int_option("--debug-hangs", f.debug_hangs, 1, 31536000);
    if (!s) return s.error();
    d.seconds = static_cast<uint64_t>(**s);
  }
  std::string dir =
      f.hang_dir.empty() ? default_hang_dir(std::filesystem::current_path().string()) : f.hang_dir;
  if (f.dry_run) {
    d.dir = std::filesystem::absolute(dir).lexically_normal().string();
    return Debug(d);
  }
  auto ready = prepare_hang_dir(dir);
  if (!ready) return ready.error();
  d.dir = *ready;
  return Debug(d);
}

Result<LaunchOptions> launch_options(const RunFlags& f) {
  LaunchOptions o;
  o.command = f.command;
  if (auto raw = command_after_marker(own_argv(), "run")) o.command = std::move(*raw);
  // Given means a container run: an empty (or bad) reference is refused by the planner, never
  // taken as "no container".
  if (f.container_given) o.image = f.image;
  if (!f.engine.empty()) {
    if (!f.container_given) return bad_input("--engine needs --container IMAGE");
    o.engine = f.engine;
  }
  if (!f.engine_args.empty() && !f.container_given)
    return bad_input("--engine-arg needs --container IMAGE");
  o.engine_args = f.engine_args;
  o.user = f.user;
  o.shm_size = f.shm_size;
  o.read_only = f.read_only;
  if (!f.nproc.empty()) o.nproc_per_node = f.nproc;
  if (!f.master_addr.empty()) o.master_addr = f.master_addr;
  auto nnodes = int_option("--nnodes", f.nnodes, 1, 65536);
  if (!nnodes) return nnodes.error();
  o.nnodes = *nnodes;
  auto rank = int_option("--node-rank", f.node_rank, 0, 65535);
  if (!rank) return rank.error();
  o.node_rank = *rank;
  auto port = int_option("--master-port", f.master_port, 1, 65535);
  if (!port) return port.error();
  o.master_port = *port;
  auto hangs = hang_debug(f);
  if (!hangs) return hangs.error();
  o.debug_hangs = *hangs;
  return o;
}

// The planner's notes into the invocation's channel: its "warning: " ones (a CDI spec not used
// because it grants more, …) as warnings, the rest (why) as notes for -v.
void report_notes(const GlobalOptions& g, const std::vector<std::string>& notes) {
  constexpr std::string_view kWarning = "warning: ";
  for (const auto& n : notes)
    report(g, n.starts_with(kWarning) ? Diagnostic::warning({}, n.substr(kWarning.size()))
                                      : Diagnostic::note(n));
}

// Whether this run locks its devices (app/locked_select.h: locks_apply), and where.
Result<std::optional<LockDirectory>> lock_place(const RunFlags& f, const HostRoot& host,
                                                const Environment& environment,
                                                const Selection& selection) {
  using Place = std::optional<LockDirectory>;
  if (f.dry_run || f.no_lock || selection.devices.empty()) return Place();
  if (!locks_apply(host.is_real_root(), environment)) return Place();
  auto dir = lock_directory(environment, ::geteuid());
  if (!dir) return dir.error();
  return Place(std::move(*dir));
}

// The selected devices locked (held until the command and all it started end), or why not.
// Returns an exit code when the run stops here.
std::optional<int> lock_devices(const RunFlags& f, const GlobalOptions& g, const LockDirectory& dir,
                                SelectOutcome& outcome, std::vector<UnitLock>& locks) {
  LockWait wait;
  wait.wait = f.wait_given;
  auto limit = parse_wait_duration(f.wait);
  if (!limit) return run_failed(limit.error().message);
  wait.limit = *limit;
  // Said at once, unless -q: a run that sits silently looks hung.
  wait.on_wait = [&g](const std::string& text) {
    if (!g.quiet) std::fprintf(stderr, "anygpu: %s\n", escape_control(text).c_str());
  };
  auto locked = lock_selection(outcome, dir, wait, ::geteuid());
  if (!locked) return run_failed(locked.error().message);
  if (!locked->locked) {
    std::fprintf(stderr, "anygpu: %s\n", escape_control(locked->busy).c_str());
    return kExitUnitsBusy;
  }
  for (const auto& n : locked->locked->notes) report(g, Diagnostic::note(n));
  outcome.selection = std::move(locked->locked->selection);
  locks = std::move(locked->locked->locks);
  return std::nullopt;
}

// `--container IMAGE`: the image is judged for the run's devices instead of the host's Python.
// Returns an exit code when the run stops here.
std::optional<int> check_image(const GlobalOptions& g, const std::string& image,
                               const Inventory& inventory, const Selection& selection) {
  auto gate = judge_run_image(image, inventory, selection);
  if (gate.refused) return run_failed(gate.refused->message);
  report_warnings(g, gate.warnings);
  for (const auto& n : gate.notes) report(g, Diagnostic::note(n));
  if (!gate.fit) {
    report(g, Diagnostic::warning({}, cat({"image ", image, " not checked: ", gate.unchecked})));
    return std::nullopt;
  }
  if (gate.fails()) {
    const std::string text = render_image_fit_text(*gate.fit);
    for (auto line : split(text, '\n')) std::fprintf(stderr, "%s\n", escape_control(line).c_str());
    return run_failed(cat({"image ", image,
                           " does not fit the devices of this run: not starting it "
                           "(--no-check starts it anyway)"}));
  }
  size_t warned = 0;
  auto warn = [&](const std::string& where, const Finding& finding) {
    if (finding.severity != Severity::warning) return;
    ++warned;
    report(g, Diagnostic::warning({}, cat({"image ", image, " on ", where, ": ", finding.code, ": ",
                                           finding.message})));
  };
  for (const auto& d : gate.fit->devices) {
    for (const auto& finding : d.findings) warn(d.pci_bus_id, finding);
    for (const auto& p : d.partitions)  // what a partition adds to its device's findings
      for (const auto& finding : p.findings)
        if (std::none_of(d.findings.begin(), d.findings.end(),
                         [&](const Finding& f) { return f.code == finding.code; }))
          warn(p.id, finding);
  }
  report(g, Diagnostic::note(cat({"image ", gate.fit->id, " (", image, ") checked for ",
                                  std::to_string(gate.fit->devices.size()),
                                  " device(s): ", warned ? "warnings" : "ok"})));
  return std::nullopt;
}

// Contracts to check: the one accelerator-config names, then --spec (or ./runtime-spec.yaml
// when present), each once.
int run(const RunFlags& f, const GlobalOptions& g) {
  auto options = launch_options(f);
  if (!options) return run_failed(options.error().message);
  if (options->command.empty())
    return run_failed("no command: write it after --, e.g. anygpu run -- python train.py");
  auto host_options = g.host_options();
  if (!host_options) return run_failed(host_options.error().message);
  // Judged by the table's rule at every run, one that takes no lock (--dry-run) too.
  if (auto lock_dir = read_env("ANYGPU_LOCK_DIR"); !lock_dir)
    return run_failed(lock_dir.error().message);
  Environment environment = current_environment();

  auto slurm = slurm_allocation(environment);
  if (!slurm) return run_failed(slurm.error().message);
  std::vector<std::string> notes;
  LaunchRequestInputs inputs;
  inputs.config = f.config;
  inputs.devices = f.devices;
  inputs.python = f.python;
  inputs.nproc_per_node = options->nproc_per_node;
  inputs.check_contracts = !f.no_check;
  inputs.spec = f.spec;
  if (f.container_given) inputs.image = f.image;
  auto request = launch_select_request(inputs, environment, *slurm, notes);
  if (!request) return run_failed(request.error().message);

  LaunchPlan plan;
  std::vector<UnitLock> locks;
  {
    HostRoot host(*host_options);
    Diagnostics found;
    auto outcome = select_on_host(host, *request, found);
    report(g, found);
    if (!outcome) return run_failed(outcome.error().message);
    if (const auto* failed = outcome->failed_contract()) {
      std::fputs(render_check_text(failed->path, failed->verdict).c_str(), stderr);
      return run_failed(
          cat({"runtime contract ", failed->path, " failed: not starting the command"}));
    }
    for (const auto& c : outcome->contracts)
      report(g, Diagnostic::note(cat({"runtime contract ", c.path, ": passed"})));
    auto place = lock_place(f, host, environment, *outcome->selection);
    if (!place) return run_failed(place.error().message);
    if (*place)
      if (auto stop = lock_devices(f, g, **place, *outcome, locks)) return *stop;
    const auto& selection = outcome->selection;
    for (const auto& r : selection->reasons) report(g, Diagnostic::note(r));
    for (const auto& w : selection->warnings) report(g, Diagnostic::warning({}, w));
    HostFacts facts = gather_host_facts(host, *selection, *options, environment, notes);
    auto planned = plan_launch(*selection, *options, facts, environment, *slurm);
    // A value that cannot reach the engine safely is run's own failure like any other (125):
    // exit 2 is what the command itself commonly returns.
    if (!planned) return run_failed(planned.error().message);
    plan = std::move(*planned);
    if (options->image && !f.no_check)
      if (auto stop = check_image(g, *options->image, outcome->inventory, *selection)) return *stop;
  }
  plan.notes.insert(plan.notes.begin(), notes.begin(), notes.end());
  report_notes(g, plan.notes);

  if (f.dry_run) {
    g.json ? print_json(g, plan_to_json(plan)) : print(plan_to_shell(plan));
    return kExitOk;
  }
  // The command (or the engine client, or torchrun's tree) holds the locks from here on.
  for (const auto& l : locks)
    if (auto kept = keep_across_exec(l); !kept) return run_failed(kept.error().message);
  return execute_plan(plan, environment);
}

}  // namespace

Command run_command() {
  return {"run", "check, select devices and run a command natively, in a container or torchrun",
          [](CLI::App& app) {
            auto f = std::make_shared<RunFlags>();
            app.add_flag("--dry-run", f->dry_run, "print the launch plan; run nothing");
            app.add_flag("--no-check", f->no_check, "skip the runtime contract check");
            app.add_option("--spec", f->spec,
                           "runtime contract to check (default ./runtime-spec.yaml when present)")
                ->type_name("FILE");
            app.add_option("--config", f->config,
                           "accelerator config (default ./accelerator-config.yaml)")
                ->type_name("FILE");
            app.add_option("--devices", f->devices,
                           "all, a count of units or a list (0,1 / 0000:18:00.0 / 0:1 / "
                           "MIG-<uuid>); replaces the config's devices:")
                ->type_name("UNITS");
            app.add_option("--python", f->python,
                           "interpreter whose packages the runtime contract checks")
                ->type_name("PATH");
            app.add_option("--container", f->image, "run in a container from IMAGE")
                ->type_name("IMAGE")
                ->each([f](const std::string&) { f->container_given = true; });
            app.add_option("--engine", f->engine,
                           "podman or docker (default: podman when on PATH, else docker)")
                ->type_name("ENGINE");
            app.add_option("--engine-arg", f->engine_args,
                           "extra engine option, before the image (repeatable; "
                           "--engine-arg=--network=none)")
                ->type_name("ARG")
                ->allow_extra_args(false);
            app.add_option("--user", f->user, "container user (default 1001:1001)")
                ->type_name("UID:GID");
            app.add_option("--shm-size", f->shm_size, "container /dev/shm size (default 8g)")
                ->type_name("SIZE");
            app.add_flag("--read-only", f->read_only, "read-only container root filesystem");
            app.add_option("--nproc-per-node", f->nproc,
                           "launch through torchrun with N processes per node, or 'auto' (one per "
                           "selected device)")
                ->type_name("N|auto");
            app.add_option("--nnodes", f->nnodes, "torchrun nodes")->type_name("N");
            app.add_option("--node-rank", f->node_rank, "torchrun node rank")->type_name("N");
            app.add_option("--master-addr", f->master_addr, "torchrun rendezvous host")
                ->type_name("HOST");
            app.add_option("--master-port", f->master_port, "torchrun rendezvous port")
                ->type_name("PORT");
            app.add_flag("--no-lock", f->no_lock,
                         "do not lock the selected devices (other runs may get them too)");
            auto* wait =
                app.add_option(
                       "--wait", f->wait,
                       "queue until enough devices are free (at most DURATION: 90, 90s, 5m, "
                       "2h; exit 124 when it runs out)")
                    ->type_name("[=DURATION]")
                    ->expected(0, 1);
            auto* hangs =
                app.add_option("--debug-hangs", f->debug_hangs,
                               "watch the ranks' progress beats; a rank without one for SECONDS "
                               "(default 300) gets every rank's stacks dumped and a hang report "
                               "(needs --nproc-per-node)")
                    ->type_name("[=SECONDS]")
                    ->expected(0, 1);
            app.add_option("--hang-dir", f->hang_dir,
                           "where --debug-hangs keeps beats, stacks and the report (default "
                           "./anygpu-hangs/<time>-<pid>)")
                ->type_name("DIR");
            app.add_option("command", f->command, "the command and its arguments, after --");
            return [f, wait, hangs](const GlobalOptions& g) {
              f->wait_given = wait->count() > 0;
              f->debug_hangs_given = hangs->count() > 0;
              return run(*f, g);
            };
          }};
}

}  // namespace anygpu::cli
