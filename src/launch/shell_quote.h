// POSIX shell quoting for `anygpu run --dry-run`: the printed plan can be pasted into a shell and
// runs the same argv, byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launch/plan.h"
#include "select/render.h"

namespace anygpu {

// Each argument through shell_quote (select/render.h): bare when no shell treats any of its
// characters specially, else in single quotes (an embedded ' becomes '\'').
std::string shell_join(const std::vector<std::string>& argv);

// `env [-u NAME]… NAME=VALUE… ARGV…` on one line (the container form has no env prefix).
std::string plan_to_shell(const LaunchPlan& plan);

}  // namespace anygpu
