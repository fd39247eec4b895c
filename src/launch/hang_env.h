// What `run --debug-hangs` sets for the ranks: ANYGPU_HANG_DIR and ANYGPU_HANG_SECONDS for
// anygpu.torch's beats and stack dumps, and the flight recorder of the dist backend where it has
// one (docs/run.md names the sources).
#pragma once

#include <vector>

#include "launch/plan.h"

namespace anygpu {

// bad_input when the launch cannot be watched: only a native torchrun launch has anygpu as its
// parent (in a container the ranks' files and processes are not anygpu's to read and signal).
Result<std::vector<EnvVar>> hang_debug_env(const HangDebug& debug, const LaunchOptions& options,
                                           const Selection& selection,
                                           const Environment& environment,
                                           std::vector<std::string>& notes);

}  // namespace anygpu
