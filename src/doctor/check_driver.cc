// A vendor's device with no kernel driver bound, bound to a driver that is not the vendor's
// (vfio-pci passthrough, nouveau), or whose driver version cannot be read.
#include <map>

#include "doctor/checks.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string address_and_name(const Device& d) {
  return cat({d.pci.address.str(), " (",
              d.name.value_or(cat({"device 0x", hex(d.pci.device_id, 4)})), ")"});
}

std::string load_fix(const Vendor& v) {
  if (v.drivers.empty()) return "install the vendor's kernel driver";
  auto mod = std::string(v.drivers.front());
  return cat({"sudo modprobe ", mod, "   # if the module is missing, install the ", v.name,
              " kernel driver package, then reboot or reload it"});
}

}  // namespace

std::vector<Finding> check_drivers(const DoctorContext& ctx) {
  std::vector<Finding> out;
  const auto& reg = Registry::builtin();
  std::map<std::string, std::vector<const Device*>> missing, foreign, no_version;
  for (const auto& d : ctx.inventory.devices) {
    const auto* v = reg.vendor(d.vendor);
    if (!v) continue;
    if (d.status == DeviceStatus::driver_missing || !d.driver) {
      missing[d.vendor].push_back(&d);
    } else if (!v->is_usable_driver(d.driver->name)) {
      foreign[d.vendor].push_back(&d);
    } else if (!d.driver->version && !v->driver_version.empty()) {
      no_version[d.vendor].push_back(&d);
    }
  }
  auto list = [](const std::vector<const Device*>& devs) {
    std::vector<std::string> parts;
    for (const auto* d : devs) parts.push_back(address_and_name(*d));
    return join(parts, ", ");
  };
  for (const auto& [vendor, devs] : missing) {
    const auto& v = *reg.vendor(vendor);
    out.push_back({"driver.not-loaded", Severity::error,
                   cat({std::string(v.name), ": ", std::to_string(devs.size()),
                        " device(s) with no kernel driver bound"}),
                   cat({list(devs), ": no driver is bound (expected ",
                        join(std::vector<std::string>(v.drivers.begin(), v.drivers.end()), " or "),
                        "), so no device node exists and every framework reports no device."}),
                   load_fix(v)});
  }
  for (const auto& [vendor, devs] : foreign) {
    const auto& v = *reg.vendor(vendor);
    out.push_back(
        {"driver.foreign", Severity::warning,
         cat({std::string(v.name), ": ", std::to_string(devs.size()), " device(s) bound to ",
              devs.front()->driver->name}),
         cat({list(devs), ": bound to ", devs.front()->driver->name, ", not to the vendor driver (",
              join(std::vector<std::string>(v.drivers.begin(), v.drivers.end()), ", "),
              "). This is right for VM passthrough (vfio-pci); otherwise frameworks "
              "cannot use the device."}),
         cat({"if the device should be used here: unbind it and ", load_fix(v)})});
  }
  for (const auto& [vendor, devs] : no_version) {
    const auto& v = *reg.vendor(vendor);
    std::vector<std::string> files;
    for (const auto& src : v.driver_version)
      files.push_back(replace_placeholder(src.path, "driver", devs.front()->driver->name));
    out.push_back({"driver.version-unreadable", Severity::warning,
                   cat({std::string(v.name), ": driver version unreadable"}),
                   cat({list(devs), ": driver ", devs.front()->driver->name,
                        " is bound, but none of ", join(files, ", "),
                        " gives its version; framework and driver compatibility cannot be "
                        "checked."}),
                   "reinstall the driver package so its module and version files match"});
  }
  return out;
}

}  // namespace anygpu
