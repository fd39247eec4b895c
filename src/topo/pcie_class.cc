// The PCIe distance classes of `nvidia-smi topo -m`, from two places in the PCI tree:
// PIX at most one switch (or bridge) between them, PXB several bridges but not the host bridge,
// PHB through the host bridge, NODE across host bridges of one NUMA node, SYS across NUMA nodes.
#include <algorithm>

#include "topo/topology.h"

namespace anygpu {

std::string_view to_string(PcieClass c) {
  switch (c) {
    case PcieClass::pix:
      return "PIX";
    case PcieClass::pxb:
      return "PXB";
    case PcieClass::phb:
      return "PHB";
    case PcieClass::node:
      return "NODE";
    case PcieClass::sys:
      return "SYS";
  }
  return "SYS";
}

namespace {

PcieClass across_host_bridges(const PciPlace& a, const PciPlace& b,
                              std::optional<int> host_numa_nodes) {
  if (a.numa_node && b.numa_node)
    return *a.numa_node == *b.numa_node ? PcieClass::node : PcieClass::sys;
  // The kernel says -1 on a host without NUMA; only a host known to have one node is NODE.
  if (!a.numa_node && !b.numa_node && host_numa_nodes == 1) return PcieClass::node;
  return PcieClass::sys;
}

}  // namespace

PciPlace pci_place(const TopoDevice& d) {
  return {d.pci_path ? &*d.pci_path : nullptr, d.root_complex, d.device->numa_node};
}

PcieClass pcie_class(const PciPlace& a, const PciPlace& b, std::optional<int> host_numa_nodes) {
  if (!a.path || !b.path || a.root_complex.empty() || a.root_complex != b.root_complex)
    return across_host_bridges(a, b, host_numa_nodes);
  const auto& pa = *a.path;
  const auto& pb = *b.path;
  // Bridges both paths share (never the functions themselves).
  size_t shared = 0;
  while (shared + 1 < pa.size() && shared + 1 < pb.size() && pa[shared] == pb[shared]) ++shared;
  if (shared == 0) return PcieClass::phb;
  // Bridges below the deepest shared one, on each side: one (a switch's downstream port) or none
  // is the same switch.
  size_t below_a = pa.size() - shared - 1;
  size_t below_b = pb.size() - shared - 1;
  return std::max(below_a, below_b) <= 1 ? PcieClass::pix : PcieClass::pxb;
}

}  // namespace anygpu
