#include "model/inventory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "model/partition_key.h"
#include "util/strings.h"

namespace anygpu {

std::optional<PciAddress> PciAddress::parse(std::string_view text) {
  // DDDD:BB:DD.F; the domain may be wider than 4 digits (VMD uses 10000 and up).
  auto parts = split(text, ':');
  if (parts.size() != 3 || parts[1].size() != 2) return std::nullopt;
  auto dot = parts[2].find('.');
  if (dot != 2 || parts[2].size() != 4) return std::nullopt;
  if (parts[0].size() < 4 || parts[0].size() > 8) return std::nullopt;
  auto domain = parse_hex(parts[0]);
  auto bus = parse_hex(parts[1]);
  auto dev = parse_hex(parts[2].substr(0, 2));
  auto fn = parse_hex(parts[2].substr(3));
  for (auto s : {parts[0], parts[1], parts[2].substr(0, 2), parts[2].substr(3)})
    for (char c : s)
      if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  if (!domain || !bus || !dev || !fn || *dev > 0x1f || *fn > 7 || *domain > 0xffffffff)
    return std::nullopt;
  return PciAddress{static_cast<uint32_t>(*domain), static_cast<uint8_t>(*bus),
                    static_cast<uint8_t>(*dev), static_cast<uint8_t>(*fn)};
}

std::string PciAddress::str() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return buf;
}

std::string_view to_string(NvLinkPeer p) {
  switch (p) {
    case NvLinkPeer::gpu:
      return "gpu";
    case NvLinkPeer::nvswitch:
      return "switch";
    case NvLinkPeer::ibm_npu:
      return "ibm-npu";
    case NvLinkPeer::unknown:
      break;
  }
  return "unknown";
}

std::optional<NvLinkPeer> parse_nvlink_peer(std::string_view text) {
  for (auto p : {NvLinkPeer::gpu, NvLinkPeer::nvswitch, NvLinkPeer::ibm_npu, NvLinkPeer::unknown})
    if (to_string(p) == text) return p;
  return std::nullopt;
}

std::string_view to_string(DeviceStatus s) {
  switch (s) {
    case DeviceStatus::ok:
      return "ok";
    case DeviceStatus::driver_missing:
      return "driver-missing";
    case DeviceStatus::library_missing:
      return "library-missing";
    case DeviceStatus::passthrough:
      return "passthrough";
    case DeviceStatus::suspended:
      return "suspended";
  }
  return "ok";
}

bool Device::bound() const {
  return status != DeviceStatus::driver_missing && status != DeviceStatus::passthrough;
}

bool Device::usable() const {
  return status == DeviceStatus::ok || status == DeviceStatus::library_missing;
}

bool Device::selectable() const {
  return usable() || status == DeviceStatus::suspended;
}

void Device::add_source(std::string_view source) {
  if (std::find(sources.begin(), sources.end(), source) == sources.end())
    sources.emplace_back(source);
}

std::vector<const Device*> Inventory::of_vendor(std::string_view vendor) const {
  std::vector<const Device*> out;
  for (const auto& d : devices)
    if (d.vendor == vendor) out.push_back(&d);
  return out;
}

std::string partition_key(const Device& parent, const Partition& p) {
  return parent.pci.address.str() + "/" + std::to_string(p.index);
}

Device partition_device(const Device& parent, const Partition& p) {
  Device d = parent;
  d.partitioning.reset();
  d.partitions.clear();
  d.device_nodes = p.device_nodes;
  d.render_node = p.render_node;
  d.card_node.reset();
  for (const auto& n : p.device_nodes)
    if (n.starts_with("/dev/dri/card")) d.card_node = n;
  d.memory_total_bytes = p.memory_total_bytes;  // a share of the parent's, unknown when unread
  if (p.numa_node) d.numa_node = p.numa_node;
  return d;
}

}  // namespace anygpu
