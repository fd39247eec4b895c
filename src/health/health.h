// `anygpu health`: findings per device from kernel interfaces (PCIe AER, link state,
// config space, AMD RAS, hwmon thresholds, the kernel log). Pure given the HostRoot.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "health/report.h"
#include "health/rules.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "model/library_facts.h"

namespace anygpu::health {

// The most of the kernel log health reads (and `gather` copies).
inline constexpr size_t kKernelLogMaxBytes = size_t{16} << 20;

struct HealthOptions {
  std::optional<double> since_seconds;  // only kernel-log records this recent
  std::vector<std::string> devices;     // --device: bus ids, VENDOR:INDEX or INDEX; empty: all
  // Facts from vendor libraries (worker::read_library_health), when they were read.
  const LibraryHealth* library = nullptr;
};

// The devices named by `selectors`; an unknown one is a host error naming it (exit 3).
Result<std::vector<const Device*>> select_devices(const Inventory& inv,
                                                  const std::vector<std::string>& selectors);

Result<HealthReport> evaluate_health(const HostRoot& host, const Inventory& inv,
                                     const HealthOptions& options,
                                     const HealthRules* rules = nullptr);  // null: built in

// "30s", "15m", "2h", "7d" or plain seconds; rejects negatives, NaN and garbage.
Result<double> parse_duration(std::string_view text);

}  // namespace anygpu::health
