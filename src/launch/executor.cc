#include "launch/executor.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "launch/hang_watch.h"
#include "launch/supervise.h"
#include "select/select.h"
#include "util/strings.h"

extern char** environ;

namespace anygpu {

Environment current_environment() {
  return process_environment();
}

std::vector<std::string> plan_environment(const LaunchPlan& plan, const Environment& caller) {
  Environment env = caller;
  for (const auto& name : plan.unset_env) env.erase(name);
  for (const auto& [name, value] : plan.env) env[name] = value;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(cat({name, "=", value}));
  return out;
}

namespace {

bool is_directory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string caller_path(const Environment& caller) {
  auto it = caller.find("PATH");
  return it == caller.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
}

bool stays_parent(const LaunchPlan& plan) {
  return plan.mode == "torchrun";
}

int execute_plan(const LaunchPlan& plan, const Environment& caller) {
  if (plan.argv.empty()) return report_not_started("run", "empty command", kExitRunFailed);
  if (stays_parent(plan)) {
    std::fflush(stdout);
    std::fflush(stderr);
    SupervisedCommand command;
    command.argv = plan.argv;
    command.env = plan_environment(plan, caller);
    command.search_path = caller_path(caller);
    std::optional<HangWatch> watch;
    if (plan.hang_watch) {
      watch.emplace(*plan.hang_watch);
      command.on_tick = [&watch] { watch->tick(); };
    }
    return supervise(command);
  }
  const std::string& name = plan.argv.front();

  // Resolve like execvp, but without its /bin/sh fallback for files lacking a #! line.
  std::vector<std::string> candidates;
  if (name.find('/') != std::string::npos) {
    candidates.push_back(name);
  } else {
    // Kept in a name: the views split() returns must not outlive the string (a temporary in a
    // range-for's initializer dies before the loop runs).
    const std::string path = caller_path(caller);
    for (auto dir : split(path, ':'))
      candidates.push_back(cat({dir.empty() ? "." : dir, "/", name}));
  }

  auto envs = plan_environment(plan, caller);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = plan.argv;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Signal dispositions and mask pass through exec as they came (like env(1)): `nohup anygpu
  // run …` keeps SIGHUP ignored, and caught handlers are reset by execve itself.
  std::fflush(stdout);
  std::fflush(stderr);

  int first_denied = 0;
  std::string denied_path;
  for (const auto& c : candidates) {
    if (access(c.c_str(), F_OK) != 0) continue;
    if (is_directory(c)) {
      if (!first_denied) {
        first_denied = EISDIR;
        denied_path = c;
      }
      continue;
    }
    execve(c.c_str(), argv.data(), envp.data());
    int err = errno;
    if (err == EACCES || err == ENOEXEC || err == EPERM) {
      if (!first_denied) {
        first_denied = err;
        denied_path = c;
      }
      continue;
    }
    return report_not_started(c, std::strerror(err),
                              err == ENOENT ? kExitNotFound : kExitRunFailed);
  }
  if (first_denied == ENOEXEC)
    return report_not_started(denied_path, "not executable (no #! line; anygpu runs no shell)",
                              kExitNotExecutable);
  if (first_denied)
    return report_not_started(denied_path, std::strerror(first_denied), kExitNotExecutable);
  return report_not_started(name,
                            plan.mode.find("container") != std::string::npos
                                ? "container engine not found on PATH"
                                : "command not found",
                            kExitNotFound);
}

}  // namespace anygpu
