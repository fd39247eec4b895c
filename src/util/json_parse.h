// JSON read from a file whose faults are reported as FILE:LINE:COLUMN, as YAML's are.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu {

// Line and column of a byte offset in `text`, both 1-based: "3:14".
std::string line_column(std::string_view text, size_t offset);

// `text` parsed; bad_input "FILE:LINE:COLUMN: invalid JSON: syntax error …" pointing at the
// fault otherwise.
Result<nlohmann::ordered_json> parse_json_text(std::string_view text, const std::string& file);

}  // namespace anygpu
