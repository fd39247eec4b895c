// The health model: findings per device in one taxonomy for every vendor, and the sources each
// device was read from. Codes are stable (docs/health.md lists them); severity orders
// ok < info < warning < critical.
#pragma once

#include <string>
#include <vector>

namespace anygpu::health {

enum class Severity { info, warning, critical };
std::string_view to_string(Severity s);

struct Finding {
  std::string code;  // "pcie.aer.fatal", "xid", "ras.uncorrectable", …
  Severity severity = Severity::info;
  std::string message;   // one line for people
  std::string evidence;  // where it was seen: "file: value" or the kernel record
  std::string action;    // what to do, from data/health.yaml where the event is catalogued
};

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
