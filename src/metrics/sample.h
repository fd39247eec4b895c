// One metrics schema for every vendor. A value a source cannot give is absent (never 0).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/library_status.h"

namespace anygpu {

struct DeviceSample {
  std::string vendor;  // registry id
  int index = 0;       // per vendor, as in `anygpu detect`
  std::string pci_bus_id;
  std::optional<std::string> uuid, name;
  std::optional<double> utilization_ratio;  // 0..1
  std::optional<double> memory_used_bytes, memory_total_bytes;
  std::optional<double> temperature_celsius;           // the headline sensor (edge, else junction)
  std::map<std::string, double> temperatures_celsius;  // every sensor by label
  std::optional<double> power_watts;
  std::optional<double> power_limit_watts;     // the enforced cap (amdgpu power1_cap, NVML)
  std::optional<double> energy_joules;         // monotonic counter
  std::map<std::string, double> clocks_hertz;  // "graphics", "memory", "sm", …
  // Why a value is absent although its source exists (unreadable or malformed file, a library
  // call that failed), each naming the file or call.
  std::vector<std::string> warnings;
};

// A backend whose vendor library runs in a worker process (src/worker/remote_sampler.h).
struct LibraryWorkerStatus {
  std::string api;       // nvml, ixml, level-zero, dcmi
  uint64_t crashes = 0;  // workers lost (crashed, exited, timed out, protocol error)
  // The last failure, until the next healthy sample: crashed, exited, timeout, protocol_error,
  // with the signal or exit code where the worker ended so.
  std::optional<LibraryStatus> status;
  std::optional<int> signal, exit_code;
};

struct BackendStatus {
  std::string vendor;
  std::string source;  // "sysfs", "nvml", "level-zero", "dcmi", "hwmon"
  bool up = false;
  std::chrono::system_clock::time_point last_success{};  // epoch when never
  std::optional<std::string> error;
  std::optional<LibraryWorkerStatus> library;
};

struct MetricsSnapshot {
  std::chrono::system_clock::time_point timestamp{};
  std::vector<DeviceSample> devices;
  std::vector<BackendStatus> backends;
};

}  // namespace anygpu
