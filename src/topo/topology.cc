// Assembles a Topology from the host: the PCI place of every device, KFD links between devices,
// NVLinks from what NVML told discovery, HCCS links from what DCMI told it, RDMA NICs and the
// nearest ones per device.
#include "topo/topology.h"

#include <cerrno>

#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "topo/hccs.h"
#include "topo/kfd_topology.h"
#include "topo/nvlink.h"
#include "topo/pci_path.h"
#include "topo/xelink.h"
#include "util/strings.h"

namespace anygpu {

namespace {

using paths::kInfiniband;
using paths::kPciDevices;

bool absent(const Error& e) {
  return e.sys_errno == ENOENT || e.sys_errno == ENOTDIR;
}

void place_device(const HostRoot& host, TopoDevice& d, std::vector<std::string>& warnings) {
  d.root_complex = d.device->pci.root_complex;
  auto dir = cat({kPciDevices, "/", d.device->pci.address.str()});
  auto resolved = host.resolve(dir);
  if (!resolved) {
    warnings.push_back(cat({dir, ": ", resolved.error().message, "; PCIe classes unknown (SYS)"}));
    return;
  }
  auto path = parse_pci_sysfs_path(*resolved);
  if (!path) {
    warnings.push_back(cat({dir, ": ", path.error().message}));
    return;
  }
  d.root_complex = path->root_complex;
  d.pci_path = std::move(path->chain);
}

std::optional<RdmaNic> read_nic(const HostRoot& host, const std::string& name,
                                std::vector<std::string>& warnings) {
  auto link = cat({kInfiniband, "/", name, "/device"});
  auto resolved = host.resolve(link);
  if (!resolved) {
    // A software device (rxe, siw over a netdev) has no PCI function of its own.
    if (!absent(resolved.error())) warnings.push_back(resolved.error().message);
    return std::nullopt;
  }
  auto path = parse_pci_sysfs_path(*resolved);
  if (!path) {
    warnings.push_back(cat({link, ": ", path.error().message, "; NIC left out"}));
    return std::nullopt;
  }
  RdmaNic nic{name, std::nullopt, path->chain.back(), std::nullopt, path->chain, path->root_complex,
              {}};
  if (auto nets = host.list_dir(cat({*resolved, "/net"})); nets && !nets->empty())
    nic.netdev = nets->front();
  auto numa_file = cat({*resolved, "/numa_node"});
  if (auto text = host.read_value(numa_file)) {
    auto numa = parse_numa_node(*text);
    if (numa)
      nic.numa_node = *numa;
    else
      warnings.push_back(cat({numa_file, ": ", numa.error().message}));
  }
  return nic;
}

void read_nics(const HostRoot& host, Topology& t) {
  auto names = host.list_dir(kInfiniband);
  if (!names) return;
  for (const auto& name : *names)
    if (auto nic = read_nic(host, name, t.warnings)) t.nics.push_back(std::move(*nic));
}

PciPlace place_of(const TopoDevice& d) {
  return {d.pci_path ? &*d.pci_path : nullptr, d.root_complex, d.device->numa_node};
}

PciPlace place_of(const RdmaNic& n) {
  return {&n.pci_path, n.root_complex, n.numa_node};
}

void find_nearest(Topology& t) {
  for (size_t i = 0; i < t.devices.size(); ++i) {
    std::optional<PcieClass> best;
    for (size_t k = 0; k < t.nics.size(); ++k) {
      auto c = pcie_class(place_of(t.devices[i]), place_of(t.nics[k]), t.host_numa_nodes);
      if (!best || c < *best) {
        best = c;
        t.devices[i].nearest_nics.clear();
      }
      if (c == *best) t.devices[i].nearest_nics.push_back(k);
    }
    for (size_t k : t.devices[i].nearest_nics) t.nics[k].nearest_devices.push_back(i);
  }
}

// Device-to-device links that exist on some products but that nothing here read: said, so an
// empty matrix is not taken for "no links". Ascend's HCCS joins NPUs of one server (all eight
// 910Bs, or two rings of four 910s) and is read only through DCMI in the library worker (said
// unless DCMI answered for every NPU); Intel's Xe Link
// joins Data Center GPU Max (xe-hpc) cards and is read through Level Zero's fabric calls (said
// unless Level Zero answered for every Max card). Facts F-63..F-66
// of the partitions and topology facts.
struct UnreadLinks {
  std::string_view vendor, arch;  // arch empty: every device of the vendor
  std::string_view what;
};
constexpr UnreadLinks kUnreadLinks[] = {
    {"ascend", "",
     "HCCS links between NPUs are not read (DCMI's HCCS calls are not used); "
     "`npu-smi info -t topo` shows them"},
    {"intel", "xe-hpc",
     "Xe Link between Data Center GPU Max cards is not read (Level Zero's "
     "fabric calls are not used); `xpu-smi topology -m` shows it"},
};

// Ascend's when DCMI was asked and did not answer for every NPU (its reasons said beside it).
constexpr std::string_view kHccsUnanswered =
    "HCCS links between NPUs are not read (DCMI did not answer for every NPU); "
    "`npu-smi info -t topo` shows them";

// Intel's when Level Zero was asked and did not answer for every Max card (reasons beside it).
constexpr std::string_view kXeLinkUnanswered =
    "Xe Link between Data Center GPU Max cards is not read (Level Zero's fabric did not answer "
    "for every card); `xpu-smi topology -m` shows it";

void say_unread_links(Topology& t, bool hccs_read, bool xe_links_read) {
  for (const auto& u : kUnreadLinks) {
    bool ascend = u.vendor == "ascend";
    if (ascend ? hccs_read : xe_links_read) continue;
    size_t n = 0;
    bool asked = false;
    for (const auto& d : t.devices)
      if (d.device->vendor == u.vendor && (u.arch.empty() || d.device->arch == u.arch)) {
        ++n;
        asked = asked || (ascend ? d.device->hccs.has_value() : d.device->xelink.has_value());
      }
    auto unanswered = ascend ? kHccsUnanswered : kXeLinkUnanswered;
    if (n >= 2) t.warnings.push_back(cat({u.vendor, ": ", asked ? unanswered : u.what}));
  }
}

}  // namespace

const DeviceLink* Topology::link(size_t a, size_t b) const {
  if (a > b) std::swap(a, b);
  for (const auto& l : links)
    if (l.a == a && l.b == b) return &l;
  return nullptr;
}

const DeviceLink* Topology::partition_link(size_t a, size_t b) const {
  if (a > b) std::swap(a, b);
  for (const auto& l : partition_links)
    if (l.a == a && l.b == b) return &l;
  return nullptr;
}

Topology read_topology(const HostRoot& host, const Inventory& inventory) {
  Topology t;
  t.host_numa_nodes = inventory.host.numa_nodes;
  for (const auto& d : inventory.devices) {
    t.devices.push_back(TopoDevice{&d, std::nullopt, {}, std::nullopt, {}});
    place_device(host, t.devices.back(), t.warnings);
  }
  read_kfd_links(host, t);
  add_nvlinks(t);
  bool hccs_read = add_hccs_links(t);
  bool xe_links_read = add_xe_links(t);
  say_unread_links(t, hccs_read, xe_links_read);
  read_nics(host, t);
  find_nearest(t);
  return t;
}

}  // namespace anygpu
