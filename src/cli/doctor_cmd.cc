// `anygpu doctor`: what is wrong with this host or environment for GPU work, why, and the
// command that fixes it. Exit 1 when any finding is an error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/command.h"
#include "doctor/doctor.h"
#include "util/terminal_text.h"

namespace anygpu::cli {

namespace {
struct DoctorFlags {
  std::string python = "python3";
  bool no_framework = false;
};
}  // namespace

Command doctor_command() {
  return {"doctor", "diagnose drivers, device access, containers and library shadowing",
          [](CLI::App& app) {
            auto f = std::make_shared<DoctorFlags>();
            app.add_option("--python", f->python,
                           "interpreter whose framework (torch wheels, nvidia/*/lib) is "
                           "checked (default python3; empty: none)")
                ->type_name("PATH");
            app.add_flag("--no-framework", f->no_framework,
                         "skip the installed framework's build and libraries");
            return [f](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inventory = discover(g, host);
              auto python = f->no_framework ? std::string() : f->python;
              auto facts = current_process_facts(python);
              if (!facts.python_error.empty() && g.verbose && !g.quiet)
                std::fprintf(stderr, "anygpu: %s\n", facts.python_error.c_str());
              DoctorContext ctx{host, inventory};
              ctx.env = std::move(facts.env);
              ctx.uid = facts.uid;
              ctx.gids = std::move(facts.gids);
              ctx.nofile_soft = facts.nofile_soft;
              ctx.python_sys_path = std::move(facts.python_sys_path);
              ctx.python = facts.python_error.empty() ? python : std::string();
              auto findings = run_doctor(ctx);
              if (!facts.python_error.empty())
                findings.push_back({"framework.python-unavailable", Severity::info,
                                    "the Python environment could not be inspected",
                                    facts.python_error +
                                        "\nThe framework build and its native libraries were "
                                        "not checked.",
                                    "pass the experiment's interpreter: anygpu doctor --python "
                                    "/path/to/venv/bin/python"});
              if (g.json) {
                print_json(g, findings_to_json(findings));
              } else {
                bool color = ::isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
                std::fputs(terminal_text(findings_to_text(findings, color)).c_str(), stdout);
              }
              return has_errors(findings) ? kExitCheckFailed : kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
