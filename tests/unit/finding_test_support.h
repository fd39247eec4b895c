// Shared by the doctor, framework and health tests: findings picked out by their code.
#pragma once

#include <string_view>
#include <vector>

#include "model/finding.h"

namespace anygpu::test {

// Every finding with `code`, in order.
inline std::vector<Finding> with_code(const std::vector<Finding>& fs, std::string_view code) {
  std::vector<Finding> out;
  for (const auto& f : fs)
    if (f.code == code) out.push_back(f);
  return out;
}

// The first finding with `code`; null when there is none.
inline const Finding* find_code(const std::vector<Finding>& fs, std::string_view code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}

}  // namespace anygpu::test
