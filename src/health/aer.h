// PCIe Advanced Error Reporting counters: /sys/bus/pci/devices/BDF/aer_dev_{correctable,
// nonfatal,fatal}. Format (drivers/pci/pcie/aer.c, aer_stats_dev_attr): one "NAME COUNT" line
// per error type, then "TOTAL_ERR_COR|TOTAL_ERR_NONFATAL|TOTAL_ERR_FATAL COUNT".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu::health {

struct AerCounters {
  std::map<std::string, uint64_t> by_type;  // "RxErr" → 3, …
  std::optional<uint64_t> total;            // the TOTAL_ERR_* line

  // The total line when present, else the sum of the per-type lines.
  uint64_t count() const;
  // "BadTLP 2, RxErr 1": the non-zero types, for evidence.
  std::string nonzero() const;
};

// A malformed line is an error naming its 1-based line number.
Result<AerCounters> parse_aer_counters(std::string_view text);

}  // namespace anygpu::health
