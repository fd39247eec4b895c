// The explicit table of metrics backends: which source samples which vendor.
#include <algorithm>

#include "host/paths.h"
#include "metrics/backend.h"
#include "probe/libs/library_probe.h"
#include "util/strings.h"
#include "vendorlib/dcmi/dcmi.h"
#include "vendorlib/level_zero/level_zero.h"
#include "vendorlib/nvml/nvml.h"

namespace anygpu {

DeviceSample identity_of(const Device& device) {
  DeviceSample s;
  s.vendor = device.vendor;
  s.index = device.index;
  s.pci_bus_id = device.pci.address.str();
  s.uuid = device.uuid;
  s.name = device.name;
  return s;
}

bool devices_gone(const HostRoot& host, const std::vector<Device>& devices) {
  if (devices.empty()) return false;
  for (const auto& d : devices)
    if (host.is_dir(cat({paths::kPciDevices, "/", d.pci.address.str()}))) return false;
  return true;
}

namespace {

// Whether the vendor's kernel driver (its registry `drivers`) is one whose sysfs attributes the
// sysfs sampler reads (src/metrics/sysfs_sampler.cc); any other vendor gets generic hwmon.
bool has_sysfs_driver(const Vendor* v) {
  if (v)
    for (auto driver : v->drivers)
      if (metrics::sysfs_metrics_driver(driver)) return true;
  return false;
}

const LibrarySpec* nvml_library(const Vendor& v) {
  for (const auto& lib : v.libraries)
    if (speaks_nvml(lib.api)) return &lib;
  return nullptr;
}

const LibrarySpec* library(const Vendor* v, std::string_view api) {
  if (v)
    for (const auto& lib : v->libraries)
      if (lib.api == api) return &lib;
  return nullptr;
}

}  // namespace

// What a library worker runs for each API (src/worker/sample_serve.cc).
std::unique_ptr<LibrarySampler> make_library_sampler(std::string_view api) {
  if (speaks_nvml(api)) return nvml::make_sampler();
  if (api == "level-zero") return ze::make_sampler();
  if (api == "dcmi") return dcmi::make_sampler();
  return nullptr;
}

std::vector<std::shared_ptr<MetricsBackend>> make_backends(const HostRoot& host,
                                                           const Inventory& inventory,
                                                           const Registry& registry) {
  std::vector<std::string> vendors;  // in inventory order
  for (const auto& d : inventory.devices)
    if (std::ranges::find(vendors, d.vendor) == vendors.end()) vendors.push_back(d.vendor);
  std::vector<std::shared_ptr<MetricsBackend>> out;
  for (const auto& id : vendors) {
    std::vector<Device> devices;
    for (const auto& d : inventory.devices)
      if (d.vendor == id) devices.push_back(d);
    const Vendor* v = registry.vendor(id);
    if (const LibrarySpec* lib = v ? nvml_library(*v) : nullptr) {
      out.push_back(make_library_backend(host, id, *lib, std::move(devices)));
    } else if (const LibrarySpec* ze = library(v, "level-zero")) {
      out.push_back(make_kernel_plus_library_backend(host, id, "sysfs", *ze, MergeRule::fill_absent,
                                                     std::move(devices)));
    } else if (const LibrarySpec* dcmi = library(v, "dcmi")) {
      out.push_back(make_kernel_plus_library_backend(host, id, "hwmon", *dcmi,
                                                     MergeRule::library_wins, std::move(devices)));
    } else if (has_sysfs_driver(v)) {
      out.push_back(make_sysfs_backend(host, id, "sysfs", std::move(devices)));
    } else {
      // No sampler for this vendor's library yet: whatever hwmon the driver registers.
      out.push_back(make_sysfs_backend(host, id, "hwmon", std::move(devices)));
    }
  }
  return out;
}

}  // namespace anygpu
