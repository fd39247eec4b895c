#include "model/arch.h"

#include <algorithm>
#include <cctype>

#include "util/strings.h"

namespace anygpu {

namespace {
bool digits_only(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

std::optional<Arch> Arch::parse(std::string_view text) {
  auto lower = to_lower(trim(text));
  std::string_view t = lower;
  if (t.empty() || t.size() > 64) return std::nullopt;
  auto base = t.substr(0, t.find(':'));  // gfx90a:sramecc+:xnack- -> gfx90a
  Arch a;
  a.name = std::string(base);
  if (base.starts_with("sm_")) {
    auto digits = base.substr(3);
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
      a.variant = digits.back();
      digits.remove_suffix(1);
    }
    if (!digits_only(digits) || digits.size() < 2 || digits.size() > 3) return std::nullopt;
    a.family = Family::nvidia;
    a.major = static_cast<int>(*parse_uint(digits.substr(0, digits.size() - 1)));
    a.minor = digits.back() - '0';
    return a;
  }
  if (base.starts_with("gfx")) {
    auto rest = base.substr(3);
    if (rest.empty() || rest.size() > 6 || !std::isdigit(static_cast<unsigned char>(rest[0])) ||
        !std::all_of(rest.begin(), rest.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
        }))
      return std::nullopt;
    a.family = Family::gfx;
    return a;
  }
  if (base != t || !std::isalpha(static_cast<unsigned char>(t.front())) ||
      !std::all_of(t.begin(), t.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      }))
    return std::nullopt;
  return a;
}

}  // namespace anygpu
