// One metrics schema for every vendor (a device's values: model/device_sample.h), and the state
// of the backends that sample them. A value a source cannot give is absent (never 0).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/device_sample.h"
#include "model/library_status.h"

namespace anygpu {

// A backend whose vendor library runs in a worker process (src/metrics/remote_sampler.h).
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
