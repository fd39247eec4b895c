// Runs a LaunchPlan: anygpu replaces itself with the command (execve, never a shell), so the
// process id, every signal, and the exit status are the command's own.
#pragma once

#include "launch/plan.h"
#include "util/exit_codes.h"

namespace anygpu {


// The environment the command gets: the caller's, minus plan.unset_env, with plan.env on top.
std::vector<std::string> plan_environment(const LaunchPlan& plan, const Environment& caller);

// Looks argv[0] up (PATH of the caller when it has no '/'), then execve. Returns only on
// failure: 127 (not found), 126 (not executable) or 125, after printing why on stderr.
int execute_plan(const LaunchPlan& plan, const Environment& caller);

// The caller's environment as a map (environ).
Environment current_environment();

}  // namespace anygpu
