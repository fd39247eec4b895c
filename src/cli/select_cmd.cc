// `anygpu select`: apply accelerator-config.yaml and print the environment for the chosen
// devices (shell, dotenv or anygpu.selection/v1).
#include <cstdio>
#include <memory>

#include <algorithm>

#include "app/locked_select.h"
#include "app/on_host.h"
#include "cli/command.h"
#include "select/render.h"
#include "select/select.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {
struct SelectFlags {
  std::string config;
  std::string format = "shell";
  int nproc = 0;
  std::string python = "python3";
  std::string devices;  // --devices: replaces the config's devices:
};
// select takes no lock and does not choose around locked devices: its output is used later,
// unlocked, so avoiding them would only make a race look safe (`run` locks). -v names the
// devices runs hold now.
void note_locks(const GlobalOptions& g, const HostRoot& host,
                const std::map<std::string, std::string>& env, const Selection& s) {
  auto holders = lock_holders_now(host.is_real_root(), env, ::geteuid());
  if (!holders) return report(g, Diagnostic::warning({}, holders.error().message));
  if (!*holders)
    return report(g, Diagnostic::note("locks: none read (a --root replay; "
                                      "ANYGPU_LOCK_DIR names a lock directory)"));
  auto chosen = selection_lock_keys(s);
  for (const auto& [key, h] : **holders) {
    bool mine = std::find(chosen.begin(), chosen.end(), key) != chosen.end();
    report(g, Diagnostic::note(cat({"locked by a run: ", key, ", ", holder_text(h),
                                    mine ? "; one of the devices chosen here" : ""})));
  }
  if ((*holders)->empty()) report(g, Diagnostic::note("locked by a run: no device"));
}

}  // namespace

Command select_command() {
  return {"select", "choose devices by policy and print their environment", [](CLI::App& app) {
            auto f = std::make_shared<SelectFlags>();
            app.add_option("--config", f->config,
                           "accelerator config (default ./accelerator-config.yaml; absent = "
                           "backend auto)")
                ->type_name("FILE");
            app.add_option("--format", f->format, "shell (default), dotenv or json")
                ->check(CLI::IsMember({"shell", "dotenv", "json"}));
            app.add_option("--nproc-per-node", f->nproc,
                           "processes sharing the devices (default LOCAL_WORLD_SIZE, else one "
                           "per chosen device)")
                ->type_name("N")
                ->check(CLI::Range(1, 65536));
            app.add_option("--devices", f->devices,
                           "all, a count of units or a list (0,1 / 0000:18:00.0 / 0:1 / "
                           "MIG-<uuid>); replaces the config's devices:")
                ->type_name("UNITS");
            app.add_option("--python", f->python,
                           "interpreter whose packages the runtime contract checks")
                ->type_name("PATH");
            return [f](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              SelectRequest req;
              if (!f->config.empty()) req.config_path = f->config;
              if (f->nproc > 0) req.processes_per_node = f->nproc;
              req.python = f->python;
              req.caller_env = process_environment();
              if (!f->devices.empty())
                req.adjust_config = [f](AcceleratorConfig& c, const Inventory&) {
                  return apply_devices_option(c, f->devices);
                };
              Diagnostics found;
              auto out = select_on_host(host, req, found);
              report(g, found);
              if (!out) return fail(out.error());
              if (const auto* failed = out->failed_contract()) {
                const auto& v = failed->verdict;
                std::fprintf(stderr, "anygpu: runtime contract %s failed:\n", failed->path.c_str());
                for (const auto& c : v.checks) {
                  if (c.status != CheckStatus::fail) continue;
                  std::fprintf(stderr, "[ERROR] %s\n", c.message.c_str());
                  if (!c.suggestion.empty())
                    std::fprintf(stderr, "  Suggestion: %s\n", c.suggestion.c_str());
                }
                std::fprintf(stderr, "[FAILED] %zu of %zu checks failed.\n", v.failures(),
                             v.checks.size());
                return kExitCheckFailed;
              }
              const auto& s = *out->selection;
              // Why, for -v.
              for (const auto& c : out->contracts)
                report(g, Diagnostic::note(cat({"runtime contract ", c.path, ": passed"})));
              report(g, Diagnostic::note(
                            cat({"config: ", out->config.file.empty() ? "(none; backend auto)"
                                                                      : out->config.file})));
              for (const auto& r : s.reasons) report(g, Diagnostic::note(r));
              for (const auto& w : s.warnings) report(g, Diagnostic::warning({}, w));
              if (g.verbose) note_locks(g, host, req.caller_env, s);
              auto format = g.json ? std::string("json") : f->format;
              if (format == "json") {
                print_json(g, selection_to_json(s));
              } else if (format == "dotenv") {
                print(selection_to_dotenv(s));
              } else {
                print(selection_to_shell(s));
              }
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
