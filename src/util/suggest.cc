#include "util/suggest.h"

#include <algorithm>
#include <vector>

namespace anygpu {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  if (word.size() > 256) return {};
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (auto c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = std::string(c);
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  auto m = closest_match(word, candidates);
  return m.empty() ? std::string() : " (did you mean '" + m + "'?)";
}

}  // namespace anygpu
