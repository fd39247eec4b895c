#include "util/version.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <tuple>

#include "util/strings.h"

namespace anygpu {

namespace {

bool segment_ok(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// (0, letters, number) for "rc2", (1, "", number) for "03": letters sort before numbers.
std::tuple<int, std::string, uint64_t> segment_key(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
  auto letters = to_lower(s.substr(0, i));
  auto digits = s.substr(i);
  uint64_t n = 0;
  if (!digits.empty()) {
    bool numeric =
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    auto v = numeric ? parse_uint(digits) : std::nullopt;
    n = v.value_or(UINT64_MAX);
  }
  return {letters.empty() ? 1 : 0, letters, n};
}

}  // namespace

bool is_dotted_version(std::string_view s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  auto parts = split(s, '.');
  return std::all_of(parts.begin(), parts.end(), segment_ok);
}

std::optional<int> compare_versions(std::string_view a, std::string_view b) {
  a = trim(a);
  b = trim(b);
  if (!is_dotted_version(a) || !is_dotted_version(b)) return std::nullopt;
  auto pa = split(a, '.'), pb = split(b, '.');
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    auto ka = segment_key(i < pa.size() ? pa[i] : "0");
    auto kb = segment_key(i < pb.size() ? pb[i] : "0");
    if (ka != kb) return ka < kb ? -1 : 1;
  }
  return 0;
}

}  // namespace anygpu
