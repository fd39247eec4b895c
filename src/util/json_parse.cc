#include "util/json_parse.h"

#include "util/strings.h"

namespace anygpu {

std::string line_column(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return cat({std::to_string(line), ":", std::to_string(column)});
}

Result<nlohmann::ordered_json> parse_json_text(std::string_view text, const std::string& file) {
  try {
    return nlohmann::ordered_json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports the byte just past the fault (1-based); point at the fault.
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    return bad_input(cat({file, ":", line_column(text, at), ": invalid JSON: ", what}));
  }
}

}  // namespace anygpu
