#include "util/version_tokens.h"

namespace anygpu {

namespace {
bool space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool is_dotted_number(std::string_view t) {
  bool dot = false, digit_before = false;
  for (char c : t) {
    if (c >= '0' && c <= '9') {
      digit_before = true;
    } else if (c == '.' && digit_before) {
      dot = true;
      digit_before = false;
    } else {
      return false;
    }
  }
  return dot && digit_before;
}
}  // namespace

std::vector<std::string> version_tokens_after(std::string_view text, std::string_view marker) {
  std::vector<std::string> out;
  auto pos = text.find(marker);
  if (pos == std::string_view::npos) return out;
  auto rest = text.substr(pos + marker.size());
  rest = rest.substr(0, rest.find('\n'));
  size_t b = 0;
  while (b < rest.size()) {
    while (b < rest.size() && space(rest[b])) ++b;
    size_t e = b;
    while (e < rest.size() && !space(rest[e])) ++e;
    if (e > b && is_dotted_number(rest.substr(b, e - b))) out.emplace_back(rest.substr(b, e - b));
    b = e;
  }
  return out;
}

}  // namespace anygpu
