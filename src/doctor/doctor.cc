#include "doctor/doctor.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "pyenv/python_env.h"
#include "util/strings.h"
#include "wheel/framework_check.h"

extern char** environ;

namespace anygpu {

namespace {
int count_of(const std::vector<Finding>& findings, Severity s) {
  return static_cast<int>(std::count_if(findings.begin(), findings.end(),
                                        [&](const Finding& f) { return f.severity == s; }));
}
}  // namespace

std::optional<std::string> DoctorContext::getenv(const std::string& name) const {
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

ProcessFacts current_process_facts(const std::string& python) {
  ProcessFacts f;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string_view::npos) f.env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  f.uid = ::geteuid();
  f.gids.push_back(::getegid());
  int n = ::getgroups(0, nullptr);
  if (n > 0) {
    std::vector<gid_t> extra(static_cast<size_t>(n));
    n = ::getgroups(n, extra.data());
    if (n > 0) f.gids.insert(f.gids.end(), extra.begin(), extra.begin() + n);
  }
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    f.nofile_soft = static_cast<uint64_t>(rl.rlim_cur);
  if (!python.empty()) {
    auto sp = query_sys_path(python, std::chrono::seconds(5));
    if (sp)
      f.python_sys_path = std::move(*sp);
    else
      f.python_error = sp.error().message;
  }
  return f;
}

std::vector<Finding> run_doctor(const DoctorContext& ctx, bool framework) {
  std::vector<Finding> all;
  auto add = [&](std::vector<Finding> more) {
    for (auto& f : more) all.push_back(std::move(f));
  };
  add(check_drivers(ctx));
  add(check_driver_userspace(ctx));
  add(check_device_access(ctx));
  add(check_containers(ctx));
  add(check_container_driver(ctx));
  add(check_kernel_for_rocm(ctx));
  add(check_open_files(ctx));
  add(check_library_shadowing(ctx));
  if (framework && !ctx.python.empty()) {
    if (ctx.python_sys_path.empty()) {
      add(framework_build_findings(ctx.host, ctx.inventory, ctx.python));
    } else {
      // The interpreter already answered for the library check: starting it again would
      // double doctor's run time.
      PythonEnv env = read_site_packages(ctx.python_sys_path);
      env.python = ctx.python;
      add(framework_build_findings(env, ctx.inventory, wheel_data()));
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return all;
}

bool has_errors(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == Severity::error; });
}

std::string_view doctor_severity_word(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "info";
  }
  return "info";
}

nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.doctor/v1";
  auto arr = nlohmann::ordered_json::array();
  for (const auto& f : findings) {
    nlohmann::ordered_json o;
    o["id"] = f.code;
    o["severity"] = std::string(doctor_severity_word(f.severity));
    o["title"] = f.message;
    o["detail"] = f.evidence;
    o["fix"] = f.action;
    arr.push_back(std::move(o));
  }
  j["findings"] = std::move(arr);
  j["summary"] = {{"errors", count_of(findings, Severity::error)},
                  {"warnings", count_of(findings, Severity::warning)},
                  {"infos", count_of(findings, Severity::info)}};
  return j;
}

std::string findings_to_text(const std::vector<Finding>& findings, bool color) {
  struct Group {
    Severity sev;
    const char* heading;
    const char* tag;
    const char* ansi;
  };
  const Group groups[] = {{Severity::error, "Errors", "ERROR", "\033[1;31m"},
                          {Severity::warning, "Warnings", "WARN", "\033[1;33m"},
                          {Severity::info, "Info", "INFO", "\033[1;36m"}};
  auto paint = [&](const char* ansi, std::string_view s) {
    return color ? cat({ansi, s, "\033[0m"}) : std::string(s);
  };
  std::string out;
  for (const auto& g : groups) {
    if (!count_of(findings, g.sev)) continue;
    out += cat({paint(g.ansi, g.heading), "\n"});
    for (const auto& f : findings) {
      if (f.severity != g.sev) continue;
      out += cat({"  [", paint(g.ansi, g.tag), "] ", f.message, "  (", f.code, ")\n"});
      for (auto line : split_lines(f.evidence)) out += cat({"      ", line, "\n"});
      if (!f.action.empty()) out += cat({"      ", paint("\033[1m", "fix:"), " ", f.action, "\n"});
    }
    out += "\n";
  }
  if (findings.empty()) out += "No problems found.\n";
  out += cat({std::to_string(count_of(findings, Severity::error)), " error(s), ",
              std::to_string(count_of(findings, Severity::warning)), " warning(s), ",
              std::to_string(count_of(findings, Severity::info)), " info(s)\n"});
  return out;
}

}  // namespace anygpu
