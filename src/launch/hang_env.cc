#include "launch/hang_env.h"

#include "util/strings.h"

namespace anygpu {

namespace {

// ProcessGroupNCCL's flight recorder (NCCL, and RCCL through the same ProcessGroupNCCL on
// ROCm): pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp (TRACE_BUFFER_SIZE,
// DUMP_ON_TIMEOUT, which needs ENABLE_MONITORING) and FlightRecorder.cpp (DEBUG_INFO_TEMP_FILE,
// a prefix the rank is appended to). gloo records nothing; hccl, xccl and the others are left
// alone until their recorders' variables are known from their sources.
std::vector<EnvVar> flight_recorder_env(const std::string& backend, const std::string& dir) {
  if (backend != "nccl") return {};
  return {{"TORCH_NCCL_TRACE_BUFFER_SIZE", "2000"},
          {"TORCH_NCCL_DUMP_ON_TIMEOUT", "1"},
          {"TORCH_NCCL_ENABLE_MONITORING", "1"},
          {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", cat({dir, "/nccl-trace-rank-"})}};
}

}  // namespace

Result<std::vector<EnvVar>> hang_debug_env(const HangDebug& debug, const LaunchOptions& options,
                                           const Selection& selection,
                                           const Environment& environment,
                                           std::vector<std::string>& notes) {
  if (options.image)
    return bad_input("--debug-hangs watches native launches only, not a --container one");
  if (!options.nproc_per_node)
    return bad_input(
        "--debug-hangs needs --nproc-per-node (1 for a single process): anygpu "
        "watches the ranks while it supervises torchrun");
  std::vector<EnvVar> env = {{"ANYGPU_HANG_DIR", debug.dir},
                             {"ANYGPU_HANG_SECONDS", std::to_string(debug.seconds)}};
  auto recorder = flight_recorder_env(selection.dist_backend, debug.dir);
  for (auto& [name, value] : recorder) {
    if (environment.count(name)) {
      notes.push_back(
          cat({"--debug-hangs: keeping the caller's ", name, "=", environment.at(name)}));
      continue;
    }
    env.emplace_back(name, value);
  }
  notes.push_back(recorder.empty()
                      ? cat({"--debug-hangs: the ", selection.dist_backend,
                             " backend has no flight recorder anygpu sets; beats and stacks only"})
                      : cat({"--debug-hangs: ", selection.dist_backend,
                             " flight recorder dumps to ", debug.dir, "/nccl-trace-rank-N"}));
  return env;
}

}  // namespace anygpu
