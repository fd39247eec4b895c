// `anygpu health --slurm`: the scontrol command that drains this node, with a reason naming the
// finding and the device, for a Slurm HealthCheckProgram or prolog.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "health/verdict.h"
#include "util/result.h"

namespace anygpu {

// Long enough for the longest code, a bus id and "+N more"; `sinfo -R` prints reasons whole.
inline constexpr size_t kMaxDrainReason = 128;

// "anygpu: <code> <bus id>" of the worst culprit, " +N more" when there are others. Printable
// ASCII only (a byte outside it, or a double quote, becomes '?': scontrol strips quotes at
// either end of the value), at most kMaxDrainReason bytes. Empty without a culprit.
std::string drain_reason(const health::NodeVerdict& verdict);

// scontrol update NodeName=NODE State=DRAIN Reason=REASON, one argv element each: scontrol
// takes everything after "Reason=" as the reason (src/scontrol/update_node.c), spaces included.
std::vector<std::string> drain_argv(const std::string& node, const std::string& reason);

// The node to drain: `slurmd_nodename` (SLURMD_NODENAME) when set and non-empty, else
// `hostname` up to its first dot (slurmd's own default NodeName). Only host-name characters
// ([A-Za-z0-9._-]): scontrol reads NodeName= as a hostlist, so "a,b" or "a[1-9]" would drain
// other nodes. bad_input names where the name came from.
Result<std::string> slurm_node_name(const char* slurmd_nodename, std::string_view hostname);

}  // namespace anygpu
