#include "util/cpulist.h"

#include "util/strings.h"

namespace anygpu {

namespace {
Result<int> parse_cpu(std::string_view s, std::string_view whole) {
  auto v = parse_int(s);
  if (!v || *v < 0 || *v > kMaxCpu)
    return bad_input(cat({"invalid CPU number '", trim(s), "' in cpulist '", trim(whole), "'"}));
  return static_cast<int>(*v);
}
}  // namespace

Result<std::vector<int>> parse_cpulist(std::string_view text) {
  std::vector<int> cpus;
  auto body = trim(text);
  if (body.empty()) return cpus;
  // Marks, not a list: "0-8191" repeated thousands of times must cost memory for 8192 CPUs.
  std::vector<bool> seen(kMaxCpu + 1, false);
  for (auto part : split(body, ',')) {
    auto dash = part.find('-');
    auto lo = parse_cpu(part.substr(0, dash), text);
    if (!lo) return lo.error();
    int hi_v = *lo;
    if (dash != std::string_view::npos) {
      auto hi = parse_cpu(part.substr(dash + 1), text);
      if (!hi) return hi.error();
      if (*hi < *lo) return bad_input(cat({"descending range '", part, "' in cpulist"}));
      hi_v = *hi;
    }
    for (int c = *lo; c <= hi_v; ++c) seen[static_cast<size_t>(c)] = true;
  }
  for (int c = 0; c <= kMaxCpu; ++c)
    if (seen[static_cast<size_t>(c)]) cpus.push_back(c);
  return cpus;
}

std::string format_cpulist(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) {
      out += '-';  // appended apart: `"-" + to_string(…)` trips g++ 12's -O3 -Wrestrict (GCC bug
                   // 105651)
      out += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace anygpu
