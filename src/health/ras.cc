#include "health/ras.h"

#include "util/strings.h"

namespace anygpu::health {

namespace {
Error at_line(int line, std::string_view what) {
  return bad_input(cat({"line ", std::to_string(line), ": ", what}));
}
}  // namespace

Result<RasCount> parse_ras_count(std::string_view text) {
  RasCount out;
  bool ue = false, ce = false;
  int line_no = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_no;
    line = trim(line);
    if (line.empty()) continue;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return at_line(line_no, "expected \"ue: N\" or \"ce: N\"");
    auto key = trim(line.substr(0, colon));
    auto value = parse_uint(line.substr(colon + 1));
    if (!value) return at_line(line_no, "count is not a non-negative integer");
    if (key == "ue") {
      out.uncorrectable = *value;
      ue = true;
    } else if (key == "ce") {
      out.correctable = *value;
      ce = true;
    } else {
      return at_line(line_no, cat({"unknown counter \"", key, "\""}));
    }
  }
  if (!ue && !ce) return bad_input("no counters");
  return out;
}

Result<BadPages> parse_bad_pages(std::string_view text) {
  BadPages out;
  int line_no = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_no;
    line = trim(line);
    if (line.empty()) continue;
    auto parts = split(line, ':');
    if (parts.size() != 3 || !parse_hex(trim(parts[0])) || !parse_hex(trim(parts[1])))
      return at_line(line_no, "expected \"0xPFN : 0xSIZE : FLAG\"");
    auto flag = trim(parts[2]);
    if (flag == "R") {
      ++out.retired;
    } else if (flag == "P") {
      ++out.pending;
    } else if (flag == "F") {
      ++out.failed;
    } else {
      return at_line(line_no, "flag is not R, P or F");
    }
  }
  return out;
}

}  // namespace anygpu::health
