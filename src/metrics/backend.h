// A metrics backend samples the devices of one vendor from one source (sysfs, NVML, …).
// Backends are listed in one table (make_backends); the collector runs each on its own worker
// and every sample() call under a deadline, so a backend only has to be correct, not quick.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/host_root.h"
#include "metrics/sample.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "util/result.h"
#include "vendorlib/apis.h"

namespace anygpu {

class MetricsBackend {
 public:
  virtual ~MetricsBackend() = default;
  virtual const std::string& vendor() const = 0;
  virtual const std::string& source() const = 0;
  // The devices this backend answers for, identity only (what a never-successful backend shows).
  virtual std::vector<DeviceSample> identities() const = 0;
  // One sample of every device. An error means the source itself is down (library missing,
  // init failed); a single unreadable value is absent from its device plus a warning.
  // Never called concurrently with itself. source() is read again after every successful
  // sample, so a backend may name a source that joined (e.g. "sysfs+level-zero").
  virtual Result<std::vector<DeviceSample>> sample() = 0;
  // Backends with a vendor library in a worker: that worker's state, read after every call
  // (from another thread: implementations make it safe).
  virtual std::optional<LibraryWorkerStatus> library_status() const { return std::nullopt; }
};

// True when no device's sysfs directory is there any more (the host tree the backend reads
// is gone): such a backend reports itself down instead of publishing empty samples as fresh.
bool devices_gone(const HostRoot& host, const std::vector<Device>& devices);

// Identity fields of a sample, as `anygpu detect` reports the device.
DeviceSample identity_of(const Device& device);

// One backend per vendor present, chosen by the table of library APIs (vendorlib/apis.h): the
// vendor's library with a sampler alone (NVML and NVML-compatible stacks) or added to the
// kernel's reader (Level Zero Sysman on sysfs for Intel, DCMI on hwmon for Ascend); without one,
// sysfs for amdgpu-style drivers and the generic hwmon reader for every other vendor.
std::vector<std::shared_ptr<MetricsBackend>> make_backends(const HostRoot& host,
                                                           const Inventory& inventory,
                                                           const Registry& registry);

std::shared_ptr<MetricsBackend> make_sysfs_backend(HostRoot host, std::string vendor,
                                                   std::string source, std::vector<Device> devices);
// A vendor library as the vendor's one source (NVML and libraries that speak it): its source is
// the library's API, and a library that cannot init is retried after the backoff.
std::shared_ptr<MetricsBackend> make_library_backend(HostRoot host, std::string vendor,
                                                     const LibrarySpec& library,
                                                     std::vector<Device> devices);
// The kernel's reader (`kernel_source`: "sysfs" or "hwmon") plus a vendor library that adds to
// it (Level Zero Sysman, DCMI): "KERNEL+API" once the library has answered, the kernel alone
// while it does not load, cannot init or its worker is lost.
std::shared_ptr<MetricsBackend> make_kernel_plus_library_backend(HostRoot host, std::string vendor,
                                                                 std::string kernel_source,
                                                                 const LibrarySpec& library,
                                                                 MergeRule merge,
                                                                 std::vector<Device> devices);

namespace metrics {

// What the sysfs sampler remembers between samples of one device: the energy counter, so
// power can come from its delta where the driver publishes no power file (Intel).
struct EnergyState {
  int channel = 0;  // the energyN_input the reading came from: a delta needs the same counter
  std::optional<double> joules;
  std::chrono::steady_clock::time_point at{};
};

// Kernel drivers whose own sysfs attributes the sampler reads: amdgpu's (and Hygon's hydcu,
// which keeps them) gpu_busy_percent and mem_info_vram_*, i915's and xe's GT frequencies.
bool sysfs_metrics_driver(std::string_view driver);

// Reads every metric file of one PCI device that exists, into `out` (identity already set).
void sample_sysfs_device(const HostRoot& host, const Device& device, EnergyState& state,
                         std::chrono::steady_clock::time_point now, DeviceSample& out);

}  // namespace metrics
}  // namespace anygpu
