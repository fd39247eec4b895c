// Which source samples which vendor: the vendor's library, as the table of library APIs
// (vendorlib/apis.h) says, or the kernel's files.
#include <algorithm>

#include "host/paths.h"
#include "metrics/backend.h"
#include "util/strings.h"
#include "vendorlib/apis.h"

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

// The vendor's first library whose API has a sampler (data/vendors.yaml lists one at most).
struct SampledLibrary {
  const LibrarySpec* spec = nullptr;
  const LibraryApi* api = nullptr;
};
SampledLibrary sampled_library(const Vendor* v) {
  if (v)
    for (const auto& lib : v->libraries)
      if (const auto* api = find_library_api(lib.api); api && api->sampler) return {&lib, api};
  return {};
}

}  // namespace

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
    // Without a driver whose sysfs attributes the sampler reads: whatever hwmon it registers.
    std::string kernel = has_sysfs_driver(v) ? "sysfs" : "hwmon";
    auto lib = sampled_library(v);
    if (!lib.api)
      out.push_back(make_sysfs_backend(host, id, kernel, std::move(devices)));
    else if (lib.api->adds_to_kernel)
      out.push_back(make_kernel_plus_library_backend(host, id, kernel, *lib.spec, lib.api->merge,
                                                     std::move(devices)));
    else
      out.push_back(make_library_backend(host, id, *lib.spec, std::move(devices)));
  }
  return out;
}

}  // namespace anygpu
