// The hang report: which rank stopped first and on which device, the last collective each rank
// entered, the beat ages and the stack dumps. `anygpu hang-report DIR` prints it; the watcher of
// `run --debug-hangs` writes it into the hang directory when it finds a stall.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch/hang_beats.h"

namespace anygpu {

// {"schema": "anygpu.hang-report/v1", "dir", "hang", "threshold_s", "first": {…}|null, "why",
//  "ranks": [{"rank", "local_rank", "pid", "device", "beats", "collectives", "event", "op",
//  "last_collective", "age_s", "stalled", "stacks"}]}
nlohmann::ordered_json hang_report_json(const std::string& dir, const std::vector<RankBeat>& ranks,
                                        const HangVerdict& verdict);

std::string hang_report_text(const std::string& dir, const std::vector<RankBeat>& ranks,
                             const HangVerdict& verdict);

}  // namespace anygpu
