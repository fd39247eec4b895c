#include "select/occupancy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/strings.h"

namespace anygpu {

// Four significant digits: what select's messages print a size in GiB with.
std::string gib_text(double gib) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", gib);
  return buf;
}

namespace {

// "88%", "12.5%": a ratio as a percentage, to the tenth where it is not whole.
std::string percent_text(double ratio) {
  char buf[32];
  double pct = ratio * 100.0;
  if (std::fabs(pct - std::round(pct)) < 0.05)
    std::snprintf(buf, sizeof buf, "%.0f%%", std::round(pct));
  else
    std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

std::string unknown_text(std::string_view what, const std::string& why) {
  return cat({what, " unknown: ", why.empty() ? std::string_view("not read") : why});
}

}  // namespace

bool is_occupancy_criterion(CriterionType type) {
  return type == CriterionType::free_memory_gb || type == CriterionType::utilization ||
         type == CriterionType::holders;
}

bool uses_occupancy(const AcceleratorConfig& config) {
  return std::any_of(config.policy.begin(), config.policy.end(), [](const PolicyRule& r) {
    return std::any_of(r.criteria.begin(), r.criteria.end(),
                       [](const Criterion& c) { return is_occupancy_criterion(c.type); });
  });
}

bool occupancy_meets(const UnitOccupancy* o, const Criterion& c, std::string* why) {
  const UnitOccupancy nothing_read;  // (a local, not a static: no one-time guard in the C ABI)
  const UnitOccupancy& occ = o ? *o : nothing_read;
  auto no = [&](std::string text) {
    if (why) *why = std::move(text);
    return false;
  };
  switch (c.type) {
    case CriterionType::free_memory_gb: {
      if (!occ.free_memory_bytes) return no(unknown_text("free memory", occ.free_memory_unknown));
      double gib = static_cast<double>(*occ.free_memory_bytes) / double(1ull << 30);
      double want = c.min_number.value_or(0);
      if (gib + 1e-9 >= want) return true;
      return no(cat({"free memory ", gib_text(gib), " GiB is less than ", gib_text(want), " GiB"}));
    }
    case CriterionType::utilization: {
      if (!occ.utilization_ratio) return no(unknown_text("utilization", occ.utilization_unknown));
      double limit = c.max_number.value_or(0);
      if (*occ.utilization_ratio <= limit + 1e-9) return true;
      return no(cat({"utilization ", percent_text(*occ.utilization_ratio), " is more than ",
                     percent_text(limit)}));
    }
    case CriterionType::holders: {
      if (!occ.holders) return no(unknown_text("holders", occ.holders_unknown));
      auto limit = static_cast<int>(c.max_number.value_or(0));
      if (*occ.holders <= limit) return true;
      return no(cat({std::to_string(*occ.holders),
                     *occ.holders == 1 ? " process holds" : " processes hold", " it, more than ",
                     std::to_string(limit), " allowed"}));
    }
    default:
      return true;  // not an occupancy criterion: judged by device_meets()
  }
}

}  // namespace anygpu
