// `anygpu host-init [--apply]`: the steps a new host of its vendor needs; --apply performs the
// ones anygpu can do itself (files, written atomically) and leaves package installs to the
// operator. Exit: 0 plan printed / everything anygpu can do is done; 1 a write failed.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "hostprep/host_init.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

nlohmann::ordered_json plan_json(const HostPlan& p, bool applied) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.host-init/v1";
  j["vendor"] = p.vendor;
  j["devices"] = p.devices;
  j["apply"] = applied;
  auto steps = nlohmann::ordered_json::array();
  for (const auto& s : p.steps) {
    nlohmann::ordered_json x;
    x["id"] = s.id;
    x["what"] = s.what;
    x["why"] = s.why;
    if (!s.path.empty()) x["path"] = s.path;
    x["state"] = std::string(to_string(s.state));
    if (!s.hint.empty()) x["hint"] = s.hint;
    steps.push_back(std::move(x));
  }
  j["steps"] = std::move(steps);
  return j;
}

std::string plan_text(const HostPlan& p, bool applied) {
  std::string out = cat({"host-init for ", p.vendor, " (", std::to_string(p.devices), " device",
                         p.devices == 1 ? "" : "s", ")", applied ? ", applied" : "", "\n"});
  size_t todo = 0;
  for (const auto& s : p.steps) {
    auto state = cat({"[", to_string(s.state), "]"});
    state.resize(13, ' ');
    out += cat({state, s.what, s.path.empty() ? "" : cat({"  ", s.path}), "\n"});
    out += cat({"             why: ", s.why, "\n"});
    if (!s.hint.empty()) out += cat({"             how: ", s.hint, "\n"});
    if (s.state == StepState::todo) ++todo;
  }
  if (!applied && todo > 0)
    out += cat({std::to_string(todo), " step", todo == 1 ? "" : "s",
                " to do: run anygpu host-init --apply (as root)\n"});
  out.pop_back();
  return out;
}

}  // namespace

Command host_init_command() {
  return {"host-init", "prepare this host for its accelerators (marker, toolkit, CDI, ulimit)",
          [](CLI::App& app) {
            auto apply = std::make_shared<bool>(false);
            app.add_flag("--apply", *apply,
                         "perform the steps anygpu can do (idempotent); default: print them");
            return [apply](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inv = discover(g, host);
              auto plan = plan_host_init(host, inv);
              report(g, plan.diagnostics);
              int rc = kExitOk;
              if (*apply) {
                auto r = apply_host_init(host, plan);
                if (!r) {
                  std::fprintf(stderr, "anygpu: host-init: %s\n", r.error().message.c_str());
                  // A path refused by the confined writer is bad input; a failed write is not.
                  rc = r.error().kind == ErrorKind::bad_input ? kExitUsage : kExitCheckFailed;
                }
              }
              g.json ? print_json(g, plan_json(plan, *apply)) : print_text(plan_text(plan, *apply));
              return rc;
            };
          }};
}

}  // namespace anygpu::cli
