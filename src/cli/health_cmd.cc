// `anygpu health`: device findings from PCIe, RAS, thermal and kernel-log evidence.
// `anygpu health --slurm`: the same findings as a Slurm HealthCheckProgram or prolog, which
// drains this node when a device fails.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "cli/command.h"
#include "cli/node_health.h"
#include "cluster/slurm_drain.h"
#include "health/render.h"
#include "health/verdict.h"
#include "host/spawn.h"
#include "launch/shell_quote.h"
#include "util/env_vars.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct Flags {
  HealthFlags health;
  bool slurm = false, dry_run = false;
  std::string drain_on = "critical";
};

// scontrol waits for slurmctld up to its MessageTimeout (10 s by default) per try; slurmd kills
// a HealthCheckProgram after HealthCheckTimeout (60 s by default).
constexpr std::chrono::seconds kScontrolTimeout{30};

std::string short_hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

// Runs scontrol (argv, no shell) on PATH; when the environment has no PATH, as under
// slurmd, the default search path (host/spawn.h): /usr/local/bin, /usr/bin, /bin.
Result<bool> run_scontrol(const std::vector<std::string>& argv) {
  SpawnSpec spec;
  spec.argv = argv;
  spec.fds[1] = ChildFd::capture();
  spec.fds[2] = ChildFd::capture();
  auto done = run_to_completion(spec, kScontrolTimeout, 4096);
  if (!done) {
    if (done.error().sys_errno == ENOENT)
      return host_error(cat({"scontrol not found on PATH (",
                             std::getenv("PATH") ? std::getenv("PATH") : "unset", ")"}));
    return host_error(cat({"cannot run scontrol: ", done.error().message}));
  }
  if (done->timed_out || !done->exit.success()) {
    auto said = std::string(trim(done->output[2] + done->output[1]));
    return host_error(
        cat({shell_join(argv), ": ", done->timed_out ? "timed out" : describe(done->exit),
             said.empty() ? "" : ": ", escape_control(said)}));
  }
  return true;
}

// Exit 0: no finding at the drain level (a device that is `unknown` is said on stderr, and
// drains nothing). 1: drained (with --dry-run: would be). 3: scontrol missing or failed.
int run_slurm(const GlobalOptions& g, const health::HealthReport& report, const Flags& f,
              const std::optional<EnvValue>& slurmd_nodename) {
  auto verdict = health::node_verdict(report, action_level(f.drain_on));
  warn_blind(g, report, "not draining the node for it");
  if (!verdict.out_of_service()) return kExitOk;
  // slurmd sets SLURMD_NODENAME for the HealthCheckProgram (src/slurmd/slurmd/slurmd.c,
  // run_script_health_check: its environment holds that and SLURM_NODE_IS_HEALTHY only, no
  // PATH) and for the Prolog and Epilog (slurm.conf(5), "Prolog and Epilog Scripts").
  auto node =
      slurm_node_name(slurmd_nodename ? slurmd_nodename->text.c_str() : nullptr, short_hostname());
  if (!node) return fail(node.error());
  auto reason = drain_reason(verdict);
  auto argv = drain_argv(*node, reason);
  if (f.dry_run) {
    print(shell_join(argv));
    return kExitCheckFailed;
  }
  if (auto ran = run_scontrol(argv); !ran) return fail(ran.error());
  if (!g.quiet) std::fprintf(stderr, "anygpu: drained %s: %s\n", node->c_str(), reason.c_str());
  return kExitCheckFailed;
}

Result<bool> check_slurm_flags(const GlobalOptions& g, const Flags& f, const CLI::App& app) {
  if (f.slurm && g.json) return bad_input("--slurm prints no document: drop --json");
  if (!f.slurm && (f.dry_run || app.count("--drain-on") > 0))
    return bad_input("--dry-run and --drain-on go with --slurm");
  return true;
}

}  // namespace

Command health_command() {
  return {"health", "find failing devices: PCIe errors, fallen-off GPUs, Xid, RAS, ECC, throttling",
          [](CLI::App& app) {
            auto f = std::make_shared<Flags>();
            add_health_flags(app, f->health);
            app.add_flag("--slurm", f->slurm,
                         "Slurm HealthCheckProgram/prolog: drain this node (scontrol) when a "
                         "device fails; exit 0 healthy, 1 drained, 3 scontrol failed");
            app.add_flag("--dry-run", f->dry_run,
                         "with --slurm: print the scontrol command instead of running it");
            add_action_level(app.add_option("--drain-on", f->drain_on,
                                            "with --slurm: drain at this severity or worse "
                                            "(warning, critical; default critical)"));
            return [f, &app](const GlobalOptions& g) {
              if (auto ok = check_slurm_flags(g, *f, app); !ok) return fail(ok.error());
              // Judged up front, healthy or not: a broken environment is found before it counts.
              auto slurmd_nodename = f->slurm ? read_env("SLURMD_NODENAME")
                                              : Result<std::optional<EnvValue>>(std::nullopt);
              if (!slurmd_nodename) return fail(slurmd_nodename.error());
              auto evaluated = evaluate_node_health(g, f->health);
              if (!evaluated) return fail(evaluated.error());
              if (f->slurm) return run_slurm(g, *evaluated, *f, *slurmd_nodename);
              g.json ? print_json(g, health::health_to_json(*evaluated))
                     : print_text(health::health_to_text(*evaluated));
              return evaluated->any_critical() ? kExitCheckFailed : kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
