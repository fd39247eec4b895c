// The runtime contract (runtime-spec.yaml) checked against the host: `anygpu check`.
// Loading and evaluating are separate; evaluation is a pure function of its inputs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/inventory.h"
#include "util/result.h"

namespace anygpu {

// A check's outcome: a fail fails the contract, a warn is reported and passes, a skip says the
// check had nothing to look at (torch absent). JSON names are to_string's: pass, fail, warn, skip.
enum class CheckStatus { pass, fail, warn, skip };
std::string_view to_string(CheckStatus s);

struct CheckResult {
  std::string name;  // "GPU compute capability", "Driver version", "PyTorch version", …
  CheckStatus status = CheckStatus::fail;
  std::string observed;
  std::string required;
  std::string message;
  std::string suggestion;  // empty when none
};

struct Verdict {
  std::vector<CheckResult> checks;
  bool passed() const;  // no check failed (warnings do not fail)
  size_t failures() const;
};

struct CheckOptions {
  std::string python = "python3";  // whose site-packages describe the installed framework
  std::string image;  // a container image holds the packages instead (PythonFacts::image)
};

// Loads the contract file and evaluates it against `inventory`. Errors: bad_input (exit 2) for a
// missing/malformed file, with FILE:LINE:COLUMN.
Result<Verdict> check_contract_file(const std::string& path, const Inventory& inventory,
                                    const CheckOptions& options);

// The SPEC's text form: "[INFO] Loading runtime contract from PATH", one "[CHECK] … - OK (…)"
// per passing check, "[WARN] …" / "[ERROR] …" each followed by "        Suggestion: …" when
// there is one, then "[SUCCESS] All checks passed. Environment is compatible." or
// "[FAILED] N of M checks failed.".
std::string render_check_text(const std::string& spec_path, const Verdict& verdict);
// {"schema":"anygpu.check/v1","passed":bool,"checks":[{name,status,observed,required,message,
// suggestion}]}; empty strings are null. The CLI adds the invocation's "warnings".
nlohmann::ordered_json render_check_json(const Verdict& verdict);

}  // namespace anygpu
