// `anygpu select --format shell|dotenv|json`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "select/select.h"

namespace anygpu {

// A POSIX shell word that evaluates to exactly `value`: bare when it holds only safe characters,
// else single-quoted ('…'\''…'), so spaces, quotes, `$`, backticks and newlines survive `eval`.
std::string shell_quote(std::string_view value);
// A dotenv value: bare when safe, else single-quoted; a value that contains a single quote is
// double-quoted with \\, \", \$ and \` escaped.
std::string dotenv_quote(std::string_view value);

// `export A=… B=…` lines, grouped as in the SPEC: identity, devices, vendor variables.
std::string selection_to_shell(const Selection& s);
std::string selection_to_dotenv(const Selection& s);
// {"schema":"anygpu.selection/v1","vendor","backend","devices":[bus ids],"env":{…}, …,
//  "rejected"?: [{"device","vendor","policy_priority"?,"reason"}]}
nlohmann::ordered_json selection_to_json(const Selection& s);

}  // namespace anygpu
