#include "probe/sysfs_value.h"

#include <charconv>
#include <string>

namespace anygpu::metrics {

namespace {
bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
}  // namespace

Result<int64_t> parse_sysfs_integer(std::string_view text, int64_t min, int64_t max) {
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  if (text.empty()) return bad_input("empty value");
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') {  // from_chars takes '-' but not '+'
    ++first;
    if (first == last || *first < '0' || *first > '9') return bad_input("not a decimal integer");
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(first, last, v);
  if (ec == std::errc::result_out_of_range) return bad_input("value out of range");
  if (ec != std::errc() || end == first) return bad_input("not a decimal integer");
  if (end != last) return bad_input("trailing characters after the number");
  if (v < min || v > max)
    return bad_input("value " + std::to_string(v) + " outside " + std::to_string(min) + ".." +
                     std::to_string(max));
  return v;
}

}  // namespace anygpu::metrics
