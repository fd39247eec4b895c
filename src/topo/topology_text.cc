#include <algorithm>

#include "topo/topology_output.h"
#include "util/strings.h"

namespace anygpu {

namespace {

PciPlace nic_place(const RdmaNic& n) {
  return {&n.pci_path, n.root_complex, n.numa_node};
}

std::string numa_cell(std::optional<int> n) {
  return n ? std::to_string(*n) : "N/A";
}

// Rows of cells: the header, then one row per device and per NIC.
std::vector<std::vector<std::string>> matrix(const Topology& t) {
  std::vector<std::string> names;
  for (const auto& d : t.devices) names.push_back(device_label(*d.device));
  for (size_t k = 0; k < t.nics.size(); ++k) names.push_back(cat({"NIC", std::to_string(k)}));
  std::vector<std::vector<std::string>> rows;
  rows.push_back({""});
  for (const auto& n : names) rows[0].push_back(n);
  rows[0].push_back("NUMA");
  size_t nd = t.devices.size();
  for (size_t r = 0; r < names.size(); ++r) {
    std::vector<std::string> row{names[r]};
    for (size_t c = 0; c < names.size(); ++c) {
      if (r == c)
        row.push_back("X");
      else if (r < nd && c < nd)
        row.push_back(device_cell(t, r, c));
      else {
        PciPlace a = r < nd ? pci_place(t.devices[r]) : nic_place(t.nics[r - nd]);
        PciPlace b = c < nd ? pci_place(t.devices[c]) : nic_place(t.nics[c - nd]);
        row.push_back(std::string(to_string(pcie_class(a, b, t.host_numa_nodes))));
      }
    }
    row.push_back(numa_cell(r < nd ? t.devices[r].device->numa_node : t.nics[r - nd].numa_node));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

constexpr const char* kLegend =
    "Legend:\n"
    "  X    = Self\n"
    "  XGMI = AMD xGMI link (KFD io_links)\n";
// Only where NVML reported NVLinks, so a host without them prints what it always did.
constexpr const char* kNvLinkLegend =
    "  NV#  = a bonded set of # NVLinks (NVML; through NVSwitches where the GPUs share one)\n";
// Only where DCMI reported HCCS links, likewise.
constexpr const char* kHccsLegend =
    "  HCCS = Huawei Cache Coherence System link between NPUs (DCMI; direct or through an HCCS "
    "switch)\n";
constexpr const char* kPcieLegend =
    "  SYS  = PCIe and the interconnect between NUMA nodes (or a NUMA node unknown)\n"
    "  NODE = PCIe and the interconnect between host bridges of one NUMA node\n"
    "  PHB  = PCIe and a PCIe host bridge\n"
    "  PXB  = several PCIe bridges, not the host bridge\n"
    "  PIX  = at most one PCIe switch or bridge\n";

}  // namespace

std::string device_label(const Device& d) {
  return cat({d.vendor, std::to_string(d.index)});
}

std::string device_cell(const Topology& t, size_t a, size_t b) {
  if (const auto* l = t.link(a, b)) {
    if (l->kind == "nvlink" && l->count) return cat({"NV", std::to_string(*l->count)});
    std::string kind = l->kind;
    for (auto& c : kind) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
    return kind;
  }
  return std::string(
      to_string(pcie_class(pci_place(t.devices[a]), pci_place(t.devices[b]), t.host_numa_nodes)));
}

std::string topology_to_text(const Topology& t) {
  if (t.devices.empty() && t.nics.empty()) return "No accelerators or RDMA NICs found.\n";
  std::string out = aligned(matrix(t));
  out += "\n";
  out += kLegend;
  if (std::any_of(t.links.begin(), t.links.end(),
                  [](const DeviceLink& l) { return l.kind == "nvlink"; }))
    out += kNvLinkLegend;
  if (std::any_of(t.links.begin(), t.links.end(),
                  [](const DeviceLink& l) { return l.kind == "hccs"; }))
    out += kHccsLegend;
  out += kPcieLegend;
  out += "\nDevices:\n";
  for (const auto& d : t.devices)
    out += cat({"  ", device_label(*d.device), ": ", d.device->pci.address.str(),
                d.device->name ? cat({" ", *d.device->name}) : "", "\n"});
  if (!t.nics.empty()) {
    out += "\nNIC Legend:\n";
    for (size_t k = 0; k < t.nics.size(); ++k) {
      const auto& n = t.nics[k];
      out += cat({"  NIC", std::to_string(k), ": ", n.name, " (", n.pci_bus_id,
                  n.netdev ? cat({", ", *n.netdev}) : "", ")\n"});
    }
  }
  return out;
}

}  // namespace anygpu
