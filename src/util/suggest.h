// "did you mean …?" for unknown keys and names.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace anygpu {

size_t edit_distance(std::string_view a, std::string_view b);
// The closest candidate within a small edit distance, or "" when nothing is close.
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace anygpu
