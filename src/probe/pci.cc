#include "probe/pci.h"

#include <algorithm>
#include <map>

#include "host/paths.h"
#include "probe/sriov.h"
#include "probe/sysfs_parse.h"
#include "util/cpulist.h"
#include "util/strings.h"
#include "util/version_tokens.h"

namespace anygpu {

namespace {

std::string attr(const PciDevice& d, std::string_view name) {
  return cat({d.sysfs_dir, "/", name});
}

// An optional attribute: absent when missing or when the kernel says "unknown"; a present
// but malformed value is a warning.
template <class T, class Parse>
std::optional<T> parsed(const ProbeContext& ctx, const std::string& path, Parse parse) {
  auto text = ctx.optional_value(path);
  if (!text) return std::nullopt;
  auto v = parse(*text);
  if (!v) {
    ctx.warn(path, v.error().message);
    return std::nullopt;
  }
  return *v;
}

void read_link_facts(const ProbeContext& ctx, PciDevice& d) {
  d.device.pci.link.speed_gts =
      parsed<double>(ctx, attr(d, "current_link_speed"), parse_link_speed);
  d.device.pci.link.width = parsed<int>(ctx, attr(d, "current_link_width"), parse_link_width);
}

void read_locality(const ProbeContext& ctx, PciDevice& d) {
  d.device.numa_node = parsed<int>(ctx, attr(d, "numa_node"), parse_numa_node);
  if (auto cpus = ctx.optional_value(attr(d, "local_cpulist"))) {
    if (auto list = parse_cpulist(*cpus); list && !list->empty())
      d.device.cpu_affinity = format_cpulist(*list);
    else if (!list)
      ctx.warn(attr(d, "local_cpulist"), list.error().message);
  }
}

void read_drm_nodes(const ProbeContext& ctx, PciDevice& d) {
  auto entries = ctx.host.list_dir(attr(d, "drm"));
  if (!entries) return;
  for (const auto& e : *entries) {
    // Never assume cardN == index: the name comes from this device's own drm directory.
    if (e.rfind("card", 0) == 0 && parse_uint(e.substr(4)))
      d.device.card_node = cat({paths::kDevDri, "/", e});
    else if (e.rfind("renderD", 0) == 0 && parse_uint(e.substr(7)))
      d.device.render_node = cat({paths::kDevDri, "/", e});
  }
}

// Root complex ("pci0000:17") from the bus link's target
// ("../../../devices/pci0000:17/0000:17:01.0/0000:18:00.0"): one readlink, no realpath walk.
std::string root_complex(const ProbeContext& ctx, const PciDevice& d) {
  auto target = ctx.host.read_link(d.sysfs_dir);
  if (!target) return {};
  for (auto part : split(*target, '/'))
    if (part.rfind("pci", 0) == 0 && part.find(':') != std::string_view::npos)
      return std::string(part);
  return {};
}

std::optional<PciDevice> identify(const ProbeContext& ctx, const std::string& name) {
  PciDevice d;
  d.sysfs_dir = cat({paths::kPciDevices, "/", name});
  auto addr = PciAddress::parse(name);
  if (!addr) {
    ctx.warn(d.sysfs_dir, "not a PCI address");
    return std::nullopt;
  }
  auto cls_text = ctx.optional_value(attr(d, "class"));
  auto ven_text = ctx.optional_value(attr(d, "vendor"));
  if (!cls_text || !ven_text) return std::nullopt;  // vanished (or named in a warning)
  auto cls = parse_pci_class(*cls_text);
  auto ven = parse_pci_id(*ven_text);
  if (!cls || !ven) {
    ctx.warn(d.sysfs_dir, !cls ? cls.error().message : ven.error().message);
    return std::nullopt;
  }
  d.vendor = ctx.registry.vendor_for_pci(*ven, *cls);
  if (!d.vendor) return std::nullopt;
  auto dev = ctx.host.read_value(attr(d, "device"));
  auto dev_id = dev ? parse_pci_id(*dev) : Result<uint16_t>(dev.error());
  if (!dev_id) {
    ctx.warn(attr(d, "device"), dev_id.error().message);
    return std::nullopt;
  }
  auto& pci = d.device.pci;
  pci.address = *addr;
  pci.vendor_id = *ven;
  pci.device_id = *dev_id;
  pci.class_code = *cls;
  d.device.vendor = d.vendor->id;
  d.device.vendor_name = d.vendor->name;
  return d;
}

void read_common_facts(const ProbeContext& ctx, PciDevice& d) {
  auto& dev = d.device;
  dev.add_source("sysfs");
  dev.pci.root_complex = root_complex(ctx, d);
  read_locality(ctx, d);
  read_drm_nodes(ctx, d);
  if (auto link = ctx.host.read_link(attr(d, "driver"))) {
    auto slash = link->rfind('/');
    dev.driver = DriverInfo{slash == std::string::npos ? *link : link->substr(slash + 1), {}};
  }
  // The driver's version is module-wide state: reading it never touches the device.
  if (dev.driver && d.vendor->is_usable_driver(dev.driver->name))
    dev.driver->version = read_driver_version(ctx, *d.vendor, dev.driver->name);
  auto pm = ctx.optional_value(attr(d, "power/runtime_status"));
  if (!dev.driver) {
    dev.status = DeviceStatus::driver_missing;
  } else if (!d.vendor->is_usable_driver(dev.driver->name)) {
    // vfio-pci, pci-stub (handed to a VM), or any other driver but the vendor's: the vendor
    // runtime cannot see it, so it is never selected and takes no visible-devices index.
    dev.status = DeviceStatus::passthrough;
  } else if (pm && *pm == "suspended") {
    // Reading the link registers or vendor files could resume it: identity facts only.
    dev.status = DeviceStatus::suspended;
    return;
  }
  read_link_facts(ctx, d);
}

}  // namespace

std::optional<std::string> read_driver_version(const ProbeContext& ctx, const Vendor& vendor,
                                               std::string_view driver) {
  // Each source's candidates in registry order. A marker line can hold several version-shaped
  // tokens; the one a later source (the module's own /sys/module/<driver>/version) confirms
  // wins, else the first.
  std::vector<std::vector<std::string>> found;
  for (const auto& src : vendor.driver_version) {
    auto path = replace_placeholder(src.path, "driver", driver);
    auto text = ctx.host.read_file(path, kSmallFileBytes);
    if (!text) continue;
    std::vector<std::string> candidates;
    if (!src.after.empty()) {
      candidates = version_tokens_after(*text, src.after);
    } else if (!src.key.empty()) {
      if (auto v = key_value(*text, src.key)) candidates.push_back(*v);
    } else if (auto line = first_line(*text); !line.empty()) {
      candidates.emplace_back(line);
    }
    std::erase_if(candidates,
                  [](const std::string& v) { return !is_printable_text(v) || v.size() >= 128; });
    if (candidates.empty())
      ctx.warn(path, "no driver version found");
    else
      found.push_back(std::move(candidates));
  }
  if (found.empty()) return std::nullopt;
  for (size_t later = 1; later < found.size(); ++later)
    for (const auto& v : found.front())
      if (v == found[later].front()) return v;
  return found.front().front();
}

std::vector<PciDevice> scan_pci(const ProbeContext& ctx) {
  std::vector<PciDevice> found;
  auto names = ctx.host.list_dir(paths::kPciDevices);
  if (!names) {
    ctx.warn(cat({"no PCI bus: ", names.error().message}));
    return found;
  }
  for (const auto& name : *names)
    if (auto d = identify(ctx, name)) found.push_back(std::move(*d));
  std::sort(found.begin(), found.end(), [](const PciDevice& a, const PciDevice& b) {
    return a.device.pci.address < b.device.pci.address;
  });
  for (auto& d : found) read_common_facts(ctx, d);
  probe_sriov(ctx, found);
  // Indices are what the vendor runtime enumerates (CUDA_DEVICE_ORDER=PCI_BUS_ID order): the
  // devices bound to the vendor's driver first; those it cannot see (unbound, passthrough)
  // are numbered after them, so they never shift a visible device's index.
  std::map<std::string, int> next_index;
  for (int pass = 0; pass < 2; ++pass)
    for (auto& d : found)
      if (d.device.bound() == (pass == 0)) d.device.index = next_index[d.device.vendor]++;
  return found;
}

}  // namespace anygpu
