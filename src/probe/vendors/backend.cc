#include "probe/vendors/backend.h"

#include "probe/pci_ids.h"
#include "util/strings.h"

namespace anygpu {

const VendorBackend& nvidia_backend();
const VendorBackend& amd_backend();
const VendorBackend& ascend_backend();
const VendorBackend& intel_backend();

const VendorBackend* backend_for(std::string_view vendor) {
  struct Entry {
    std::string_view vendor;
    const VendorBackend& (*get)();
  };
  static constexpr Entry kBackends[] = {
      {"nvidia", nvidia_backend},
      {"amd", amd_backend},
      {"hygon", amd_backend},
      {"ascend", ascend_backend},
      {"intel", intel_backend},
  };
  for (const auto& e : kBackends)
    if (e.vendor == vendor) return &e.get();
  return nullptr;
}

namespace {

void add_node(const ProbeContext& ctx, Device& dev, const std::string& node) {
  if (!ctx.host.exists(node)) return;
  for (const auto& n : dev.device_nodes)
    if (n == node) return;
  dev.device_nodes.push_back(node);
}

// The vendor's own device minor, where the kernel exposes one in sysfs (accel subsystem).
std::optional<int> accel_minor(const ProbeContext& ctx, const PciDevice& d) {
  auto entries = ctx.host.list_dir(d.sysfs_dir + "/accel");
  if (!entries) return std::nullopt;
  for (const auto& e : *entries)
    if (e.rfind("accel", 0) == 0)
      if (auto n = parse_uint(e.substr(5)); n && *n < 4096) return static_cast<int>(*n);
  return std::nullopt;
}

}  // namespace

void apply_registry_facts(const ProbeContext& ctx, PciDevice& d) {
  auto& dev = d.device;
  const auto& vendor = *d.vendor;
  if (!dev.minor) dev.minor = accel_minor(ctx, d);
  for (auto pattern : vendor.per_device_nodes) {
    if (pattern.find("{minor}") != std::string_view::npos && !dev.minor) continue;
    auto node = replace_placeholder(pattern, "index", std::to_string(dev.index));
    if (dev.minor) node = replace_placeholder(node, "minor", std::to_string(*dev.minor));
    add_node(ctx, dev, node);
  }
  if (vendor.drm_nodes) {
    if (dev.card_node) add_node(ctx, dev, *dev.card_node);
    if (dev.render_node) add_node(ctx, dev, *dev.render_node);
  }
  if (const auto* spec = ctx.registry.device(vendor.id, dev.pci.device_id)) {
    bool used = false;
    if (!dev.name) dev.name = std::string(spec->name), used = true;
    if (!dev.arch) dev.arch = std::string(spec->arch), used = true;
    if (!dev.memory_total_bytes && spec->memory_gib) {
      dev.memory_total_bytes = static_cast<uint64_t>(*spec->memory_gib * 1024 * 1024 * 1024);
      used = true;
    }
    if (spec->memory_bandwidth_gbps)
      dev.memory_bandwidth_gbps = spec->memory_bandwidth_gbps, used = true;
    if (spec->integrated) dev.integrated = true, used = true;
    if (used) dev.add_source("registry");
  }
  if (!dev.name) {
    if (auto name = lookup_pci_name(ctx.host, dev.pci.vendor_id, dev.pci.device_id)) {
      dev.name = *name;
      dev.add_source("pci.ids");
    }
  }
}

}  // namespace anygpu
