#include "health/aer.h"

#include <charconv>

#include "util/strings.h"

namespace anygpu::health {

uint64_t AerCounters::count() const {
  if (total) return *total;
  uint64_t sum = 0;
  for (const auto& [name, n] : by_type) sum += n;
  return sum;
}

std::string AerCounters::nonzero() const {
  std::string out;
  for (const auto& [name, n] : by_type) {
    if (n == 0) continue;
    if (!out.empty()) out += ", ";
    out += name + " " + std::to_string(n);
  }
  return out;
}

namespace {
bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
}  // namespace

Result<AerCounters> parse_aer_counters(std::string_view text) {
  AerCounters out;
  int line_no = 0;
  for (std::string_view line : split_lines(text)) {
    ++line_no;
    line = trim(line);
    if (line.empty()) continue;
    auto space = line.find(' ');
    auto where = [&](std::string_view what) {
      return bad_input(cat({"line ", std::to_string(line_no), ": ", what}));
    };
    if (space == std::string_view::npos) return where("expected \"NAME COUNT\"");
    auto name = line.substr(0, space);
    auto number = trim(line.substr(space + 1));
    for (char c : name)
      if (!is_name_char(c)) return where("error type name has an unexpected character");
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size() || number.empty())
      return where("count is not a non-negative integer");
    if (name.starts_with("TOTAL_ERR_")) {
      out.total = value;
    } else {
      out.by_type[std::string(name)] = value;
    }
  }
  if (out.by_type.empty() && !out.total) return bad_input("no counters");
  return out;
}

}  // namespace anygpu::health
