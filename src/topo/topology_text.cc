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

// A row of the matrix: a device, or one of its partitions where KFD lists them.
struct MatrixRow {
  size_t device = 0;
  std::optional<size_t> partition;  // index into Topology::partitions
};

std::vector<MatrixRow> matrix_rows(const Topology& t) {
  std::vector<MatrixRow> rows;
  for (size_t i = 0; i < t.devices.size(); ++i) {
    size_t before = rows.size();
    for (size_t k = 0; k < t.partitions.size(); ++k)
      if (t.partitions[k].device == i) rows.push_back({i, k});
    if (rows.size() == before) rows.push_back({i, std::nullopt});
  }
  return rows;
}

std::string row_label(const Topology& t, const MatrixRow& r) {
  auto label = device_label(*t.devices[r.device].device);
  if (!r.partition) return label;
  return cat({label, ":", std::to_string(t.partitions[*r.partition].partition->index)});
}

std::string upper_kind(std::string s) {
  for (auto& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

// Between two partitions: their link's kind and KFD weight ("XGMI13"), else their devices' cell.
std::string row_cell(const Topology& t, const MatrixRow& a, const MatrixRow& b) {
  if (a.partition && b.partition)
    if (const auto* l = t.partition_link(*a.partition, *b.partition))
      return cat({upper_kind(l->kind), l->weight ? std::to_string(*l->weight) : ""});
  if (a.device == b.device)
    return std::string(to_string(pcie_class(pci_place(t.devices[a.device]),
                                            pci_place(t.devices[b.device]), t.host_numa_nodes)));
  return device_cell(t, a.device, b.device);
}

// Rows of cells: the header, then one row per device (or partition) and per NIC.
std::vector<std::vector<std::string>> matrix(const Topology& t) {
  auto devs = matrix_rows(t);
  std::vector<std::string> names;
  for (const auto& r : devs) names.push_back(row_label(t, r));
  for (size_t k = 0; k < t.nics.size(); ++k) names.push_back(cat({"NIC", std::to_string(k)}));
  std::vector<std::vector<std::string>> rows;
  rows.push_back({""});
  for (const auto& n : names) rows[0].push_back(n);
  rows[0].push_back("NUMA");
  size_t nd = devs.size();
  auto place = [&](size_t r) {
    return r < nd ? pci_place(t.devices[devs[r].device]) : nic_place(t.nics[r - nd]);
  };
  for (size_t r = 0; r < names.size(); ++r) {
    std::vector<std::string> row{names[r]};
    for (size_t c = 0; c < names.size(); ++c) {
      if (r == c)
        row.push_back("X");
      else if (r < nd && c < nd)
        row.push_back(row_cell(t, devs[r], devs[c]));
      else
        row.push_back(std::string(to_string(pcie_class(place(r), place(c), t.host_numa_nodes))));
    }
    row.push_back(
        numa_cell(r < nd ? t.devices[devs[r].device].device->numa_node : t.nics[r - nd].numa_node));
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
// Only where partitions are rows, so a host without them prints what it always did.
constexpr const char* kPartitionLegend =
    "  XGMI# = AMD xGMI link between partitions, # its KFD weight (lower is nearer: 13 inside\n"
    "          one device, 41 between two devices)\n";
// Only where DCMI reported HCCS links, likewise.
constexpr const char* kHccsLegend =
    "  HCCS = Huawei Cache Coherence System link between NPUs (DCMI; direct or through an HCCS "
    "switch)\n";
// Only where Level Zero reported Xe Links, likewise.
constexpr const char* kXeLinkLegend =
    "  XL#  = Xe Link: # edges between the two GPUs or their tiles (Level Zero fabric)\n";
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
    if (l->kind == "xelink" && l->count) return cat({"XL", std::to_string(*l->count)});
    return upper_kind(l->kind);
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
  if (!t.partitions.empty()) out += kPartitionLegend;
  if (std::any_of(t.links.begin(), t.links.end(),
                  [](const DeviceLink& l) { return l.kind == "hccs"; }))
    out += kHccsLegend;
  if (std::any_of(t.links.begin(), t.links.end(),
                  [](const DeviceLink& l) { return l.kind == "xelink"; }))
    out += kXeLinkLegend;
  out += kPcieLegend;
  out += "\nDevices:\n";
  for (const auto& r : matrix_rows(t)) {
    const Device& d = *t.devices[r.device].device;
    auto id = r.partition ? t.partitions[*r.partition].partition->id : d.pci.address.str();
    auto node = r.partition
                    ? cat({", KFD node ", std::to_string(t.partitions[*r.partition].kfd_node)})
                    : std::string();
    out += cat({"  ", row_label(t, r), ": ", id, d.name ? cat({" ", *d.name}) : "", node, "\n"});
  }
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
