// Runs a LaunchPlan, never through a shell. Natively and with a container engine anygpu
// replaces itself with the command (execve), so the process id, every signal and the exit
// status are the command's own (an engine ends its container's processes itself). A torchrun
// launch starts a tree of processes anygpu stays the parent of (launch/supervise.h), so that
// signals reach the whole tree and nothing of it outlives the launch.
#pragma once

#include "launch/plan.h"
#include "util/exit_codes.h"

namespace anygpu {

// The environment the command gets: the caller's, minus plan.unset_env, with plan.env on top.
std::vector<std::string> plan_environment(const LaunchPlan& plan, const Environment& caller);

// The PATH a command without '/' is looked up on: the caller's, else the usual directories.
std::string caller_path(const Environment& caller);

// Whether anygpu stays the parent of the plan's command instead of exec'ing it: torchrun.
bool stays_parent(const LaunchPlan& plan);

// Looks argv[0] up (PATH of the caller when it has no '/'), then execve; or, when anygpu stays
// the parent, runs it to its end and returns its exit code. Otherwise returns only on failure:
// 127 (not found), 126 (not executable) or 125, after printing why on stderr.
int execute_plan(const LaunchPlan& plan, const Environment& caller);

// The caller's environment as a map (environ).
Environment current_environment();

}  // namespace anygpu
