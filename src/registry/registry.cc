#include "registry/registry.h"

#include <algorithm>

namespace anygpu {

bool Vendor::matches_pci(uint16_t vendor_id, uint32_t class_code) const {
  auto cls = static_cast<uint16_t>(class_code >> 8);
  return std::find(pci_vendor_ids.begin(), pci_vendor_ids.end(), vendor_id) !=
             pci_vendor_ids.end() &&
         std::find(pci_classes.begin(), pci_classes.end(), cls) != pci_classes.end();
}

bool Vendor::is_usable_driver(std::string_view driver) const {
  return std::find(drivers.begin(), drivers.end(), driver) != drivers.end();
}

VendorTorchBuild Vendor::torch_build() const {
  std::string_view b = torch_build_name;
  if (b.starts_with("vendor")) return {b.starts_with("vendor-") ? b.substr(7) : "", false};
  return {b, true};
}

const Vendor* Registry::vendor(std::string_view id) const {
  for (const auto& v : vendors_)
    if (v.id == id) return &v;
  return nullptr;
}

const Vendor* Registry::vendor_for_pci(uint16_t vendor_id, uint32_t class_code) const {
  for (const auto& v : vendors_)
    if (v.matches_pci(vendor_id, class_code)) return &v;
  return nullptr;
}

const DeviceSpec* Registry::device(std::string_view vendor, uint16_t device_id) const {
  for (const auto& d : devices_)
    if (d.vendor == vendor && d.device_id == device_id) return &d;
  return nullptr;
}

}  // namespace anygpu
