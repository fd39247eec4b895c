// What choosing and publishing devices needs from a Topology: which devices share a direct link
// and how many, the link domains (groups every two of which are directly linked) and the PCIe
// switch each device sits behind. Closeness is keyed by PCI bus id and holds no pointer into the
// inventory it was read from, so a selection can be made again from a copy of its inputs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "topo/topology.h"

namespace anygpu {

// How many direct links join the two devices of `l`: DeviceLink::count where the source counts
// them; one for a one-hop xGMI link and for an HCCS link (DCMI does not count its lanes). KFD lists
// every peer of an xGMI hive, farther ones with 15 per hop (kfd_crat.c), so a heavier xGMI weight
// is a route over other devices: 0.
int direct_link_count(const DeviceLink& l);

struct DirectLink {
  std::string kind;                  // "xgmi"
  int count = 0;                     // > 0
  std::optional<uint64_t> weight{};  // KFD's weight, where the link has one
};

struct Closeness {
  // Directly linked devices, (lower bus id, higher bus id); directly linked partitions the same
  // way by their ids ("0000:05:00.0/3", Topology::partitions).
  std::map<std::pair<std::string, std::string>, DirectLink> links;
  // Bus id -> the PCIe switch it sits behind, named by the root complex and the first bridge
  // below it ("pci0000:17/0000:17:01.0"). Devices that share it are PIX or PXB apart
  // (pcie_class()); a device straight on its root bus has none.
  std::map<std::string, std::string> pcie_switch;

  const DirectLink* link(const std::string& a, const std::string& b) const;
};

Closeness closeness_of(const Topology& t);

struct LinkDomain {
  std::string kind;             // the kind of its links ("xgmi"); one kind per domain
  std::vector<size_t> devices;  // indexes into Topology::devices, in bus order, two or more
};

// Groups every two of which are directly linked by one kind of link, greedy in bus order: each
// device not yet in a domain starts one, which every later device linked to all its members
// joins. Full meshes (xGMI hives, NVSwitch) come out whole; largest first, then bus order.
std::vector<LinkDomain> link_domains(const Topology& t);

}  // namespace anygpu
