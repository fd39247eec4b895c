// `anygpu preflight`'s results: what each launched process measured on its device (it writes
// OUT/rank-<RANK>.json, python/anygpu/torch/preflight.py) and one verdict per device made from
// it. Throughput is judged against the registry's datasheet figure for the device's model
// (data/devices.yaml matmul_tflops, memory_bandwidth_gbps); a model without one is measured,
// not judged; a device whose process wrote nothing fails, it is never taken as passed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

// A measured rate passes at this share of the datasheet's peak or more. Well run, a matmul
// reaches 50-85 % of peak and a fill 70-90 % of the memory bandwidth; a device at a third is
// held back (stuck clocks, power cap, a degraded part).
inline constexpr double kPreflightFloor = 0.35;

struct PreflightTest {
  std::string name;
  std::string status;  // pass | fail | measured | skipped
  std::optional<double> value;
  std::optional<std::string> unit;
  std::optional<std::string> detail;
  std::optional<double> expected_min;  // set when judged against the registry
};

// One process's rank-<RANK>.json (schema anygpu.preflight-rank/v1).
struct RankResult {
  int rank = 0;
  int local_rank = 0;
  int world_size = 1;
  std::string device;  // torch's name: "cuda:0", "cpu"
  std::string torch;
  std::vector<PreflightTest> tests;
};

// bad_input naming FILE (and FILE:LINE:COLUMN for malformed JSON) when it is not such a result.
Result<RankResult> parse_rank_result(std::string_view text, const std::string& file);

// OUT/rank-<r>.json for r in 0..world-1, in rank order; nullopt where a process wrote none.
Result<std::vector<std::optional<RankResult>>> read_rank_results(const std::string& dir, int world);

// One unit preflight was asked about: a device, a partition, or a process on the CPU.
struct PreflightUnit {
  std::optional<std::string> pci_bus_id;
  std::string id;  // bus id, "<bus id>/<partition>", or "cpu:<rank>"
  std::optional<std::string> name;
  const DeviceSpec* spec = nullptr;  // the model's registry entry, when known
  bool partition = false;            // a share of the model: its datasheet rates do not apply
  bool cpu = false;
  std::optional<std::string> skip;  // why it was not tested (held by a run, suspended)
};

enum class PreflightVerdict { ok, fail, skipped };
std::string_view to_string(PreflightVerdict v);

struct UnitVerdict {
  PreflightUnit unit;
  PreflightVerdict verdict = PreflightVerdict::fail;
  std::string reason;  // for fail and skipped
  std::vector<PreflightTest> tests;
};

// `result` is the unit's process's; nullopt when it wrote none (`missing_why`: how the launch
// ended), which fails the unit.
UnitVerdict judge_unit(const PreflightUnit& unit, const std::optional<RankResult>& result,
                       const std::string& missing_why);

// {"schema": "anygpu.preflight/v1", "devices": [{"pci_bus_id", "id", "name"?, "verdict",
//  "reason"?, "tests": [{"name", "value"?, "unit"?, "expected"?, "status", "detail"?}]}]}
nlohmann::ordered_json preflight_json(const std::vector<UnitVerdict>& verdicts);
std::string preflight_text(const std::vector<UnitVerdict>& verdicts);

// 1 when a unit failed; 3 when none was tested (all skipped); 0 otherwise.
int preflight_exit_code(const std::vector<UnitVerdict>& verdicts);

}  // namespace anygpu
