// The links between a host's devices and its RDMA NICs, read from kernel interfaces first:
// AMD KFD io_links/p2p_links, the PCI hierarchy in sysfs and /sys/class/infiniband; then NVLink
// as NVML told discovery's library worker (Device::nvlink), HCCS as DCMI told it (Device::hccs),
// Xe Link as Level Zero's fabric told it (Device::xelink).
// Bad input never stops the reading: the link or NIC is left out with a warning naming the file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"

namespace anygpu {

// nvidia-smi's PCIe distance classes, nearest first (`nvidia-smi topo -m` legend).
enum class PcieClass { pix, pxb, phb, node, sys };
std::string_view to_string(PcieClass c);  // "PIX", "PXB", "PHB", "NODE", "SYS"

// A direct device-to-device link (both directions seen, so stored once with a < b).
struct DeviceLink {
  size_t a = 0, b = 0;  // indexes into Topology::devices
  std::string kind;     // "xgmi", "nvlink", "hccs", "xelink"
  std::optional<int> count;
  std::optional<uint64_t> weight;
};

struct TopoDevice {
  const Device* device = nullptr;
  std::optional<std::vector<std::string>> pci_path;  // bridges then the device, below its root
  std::string root_complex;                          // "pci0000:17"; empty when unknown
  std::optional<int> kfd_node;
  std::vector<size_t> nearest_nics;  // indexes into Topology::nics
};

// A partition of a partitioned device that KFD lists as a node of its own (an AMD XCP, its
// index in the low bits of location_id, facts F-31): a row of the link matrix in place of its
// device, linked to the other partitions on its own.
struct TopoPartition {
  size_t device = 0;  // its device, an index into Topology::devices
  const Partition* partition = nullptr;
  int kfd_node = 0;
};

struct RdmaNic {
  std::string name;  // "mlx5_0"
  std::optional<std::string> netdev;
  std::string pci_bus_id;
  std::optional<int> numa_node;
  std::vector<std::string> pci_path;
  std::string root_complex;
  std::vector<size_t> nearest_devices;  // devices whose nearest NICs include this one
};

struct Topology {
  std::vector<TopoDevice> devices;
  std::vector<DeviceLink> links;
  // Device order, then partition index; empty on a host whose partitions KFD does not list.
  std::vector<TopoPartition> partitions;
  std::vector<DeviceLink> partition_links;  // a and b index `partitions`
  std::vector<RdmaNic> nics;
  std::vector<std::string> warnings;  // "WHERE: MESSAGE"
  std::optional<int> host_numa_nodes;

  // The link between two devices, if any.
  const DeviceLink* link(size_t a, size_t b) const;
  // The link between two partitions (indexes into `partitions`), if any.
  const DeviceLink* partition_link(size_t a, size_t b) const;
};

// The PCIe class between two places in the PCI tree (paths as in TopoDevice::pci_path).
// Unknown NUMA nodes on a host of more than one (or an unknown number of) NUMA node are SYS.
struct PciPlace {
  const std::vector<std::string>* path = nullptr;
  std::string_view root_complex;
  std::optional<int> numa_node;
};
PcieClass pcie_class(const PciPlace& a, const PciPlace& b, std::optional<int> host_numa_nodes);
// Where a device sits in the PCI tree, for pcie_class().
PciPlace pci_place(const TopoDevice& d);

Topology read_topology(const HostRoot& host, const Inventory& inventory);

}  // namespace anygpu
