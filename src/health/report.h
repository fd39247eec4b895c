// The health model: findings per device in one taxonomy for every vendor, and the sources each
// device was read from. Codes are stable (docs/health.md lists them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/finding.h"

namespace anygpu::health {

// anygpu.health/v1, data/health.yaml and the exporter's `severity` label say info, warning,
// critical: "critical" for the top level, as the device verdict says (model/finding.h).
std::string_view severity_word(Severity s);

// In the order "worst of what is known": `unknown` stands only where no finding says worse.
enum class Health { ok, unknown, warning, critical };
std::string_view to_string(Health h);

// One place health reads (docs/health.md, "Sources"), and whether it could.
struct SourceReading {
  std::string source;  // kernel-log, pcie, aer, ras, hwmon, nvml, ixml, dcmi, level-zero
  bool read = false;
  bool essential = false;  // while it is unread the device is `unknown`, never `ok`
  std::string reason;      // unread: permission-denied, absent, malformed, error, suspended, …
  std::string detail;      // the path, the library's message, or how it was read
};

struct DeviceHealth {
  std::string pci_bus_id;
  std::string vendor;
  int index = 0;
  std::vector<Finding> findings;
  std::vector<SourceReading> sources;
  // A partitioned device's partitions ("<bus id>/<index>"): its findings and health are theirs,
  // a partition failing with its device (an XID, a RAS error, a lost link name the device).
  std::vector<std::string> partitions{};

  // Something was read, and every essential source was.
  bool covered() const;
  // The worst finding (info counts as ok); `unknown` instead of `ok` when not covered().
  Health health() const;
};

struct HealthReport {
  std::vector<DeviceHealth> devices;
  std::vector<Finding> host;           // events that name no device we list (e.g. an NVSwitch SXid)
  std::vector<SourceReading> sources;  // the node's own: the kernel log
  std::vector<std::string> warnings;

  bool any_critical() const;
  Health worst() const;  // of every device (host findings name none)
};

}  // namespace anygpu::health
