// The individual health checks, each adding findings for one device (or the host).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "health/report.h"
#include "health/rules.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "model/library_facts.h"

namespace anygpu::health {

struct CheckContext {
  const HostRoot& host;
  std::vector<std::string>& warnings;
};

// sysfs: AER counters, link width/speed, config space, AMD RAS counters and bad pages, hwmon
// temperatures against the device's own thresholds. Each adds its findings and the sources it
// read (pcie and aer; ras; hwmon) to `h`.
void check_pcie(const CheckContext& ctx, const Device& dev, DeviceHealth& h);
void check_ras(const CheckContext& ctx, const Device& dev, DeviceHealth& h);
void check_thermal(const CheckContext& ctx, const Device& dev, DeviceHealth& h);

// The rules table, asked for only when a record or a library fact needs it: parsing
// data/health.yaml costs more than every sysfs check of an 8-GPU host together.
using RulesSource = std::function<const HealthRules&()>;

// The kernel log: Xid/SXid and the drivers' reset, hang and RAS messages, attributed to the
// device they name (or the only device of that driver); the rest goes to `host`. Returns how
// the log was read, or why it was not.
SourceReading check_kernel_log(const CheckContext& ctx, const RulesSource& rules,
                               std::optional<double> since_seconds,
                               std::vector<DeviceHealth>& devices, const Inventory& inv,
                               std::vector<Finding>& host);

// A vendor library's health facts (NVML): ECC, row remapping, retired pages, throttling.
void check_library(const DeviceLibraryFacts& facts, const HealthRules& rules,
                   std::vector<Finding>& out);

// Adds `f`, or counts it into an existing finding with the same code and message.
void add_finding(std::vector<Finding>& out, Finding f);

}  // namespace anygpu::health
