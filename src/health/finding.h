// The health model: findings per device in one taxonomy for every vendor. Codes are stable
// (docs/health.md lists them); severity orders ok < info < warning < critical.
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

enum class Health { ok, warning, critical };
std::string_view to_string(Health h);

struct DeviceHealth {
  std::string pci_bus_id;
  std::string vendor;
  int index = 0;
  std::vector<Finding> findings;

  Health health() const;  // the worst finding (info counts as ok)
};

struct HealthReport {
  std::vector<DeviceHealth> devices;
  std::vector<Finding> host;  // events that name no device we list (e.g. an NVSwitch SXid)
  std::vector<std::string> warnings;

  bool any_critical() const;
  Health worst() const;  // of every device (host findings name none)
};

}  // namespace anygpu::health
