#include "topo/topology_output.h"
#include "util/strings.h"

namespace anygpu {

namespace {

nlohmann::ordered_json device_json(const Topology& t, const TopoDevice& d) {
  nlohmann::ordered_json j;
  j["label"] = device_label(*d.device);
  j["vendor"] = d.device->vendor;
  j["index"] = d.device->index;
  j["pci_bus_id"] = d.device->pci.address.str();
  if (d.device->numa_node) j["numa_node"] = *d.device->numa_node;
  if (!d.root_complex.empty()) j["root_complex"] = d.root_complex;
  if (d.kfd_node) j["kfd_node"] = *d.kfd_node;
  j["nearest_nics"] = nlohmann::ordered_json::array();
  for (size_t k : d.nearest_nics) j["nearest_nics"].push_back(t.nics[k].name);
  return j;
}

nlohmann::ordered_json nic_json(const Topology& t, const RdmaNic& n) {
  nlohmann::ordered_json j;
  j["name"] = n.name;
  if (n.netdev) j["netdev"] = *n.netdev;
  j["pci_bus_id"] = n.pci_bus_id;
  if (n.numa_node) j["numa_node"] = *n.numa_node;
  j["nearest_devices"] = nlohmann::ordered_json::array();
  for (size_t i : n.nearest_devices)
    j["nearest_devices"].push_back(t.devices[i].device->pci.address.str());
  return j;
}

std::string bus_id(const Topology& t, size_t i) {
  return t.devices[i].device->pci.address.str();
}

// A link; a and b are bus ids, or partition ids for a link between partitions.
nlohmann::ordered_json link_json(const DeviceLink& l, const std::string& a, const std::string& b) {
  nlohmann::ordered_json e;
  e["a"] = a;
  e["b"] = b;
  e["kind"] = l.kind;
  if (l.count) e["count"] = *l.count;
  if (l.weight) e["weight"] = *l.weight;
  return e;
}

}  // namespace

nlohmann::ordered_json topology_to_json(const Topology& t) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.topology/v1";
  j["devices"] = nlohmann::ordered_json::array();
  for (const auto& d : t.devices) j["devices"].push_back(device_json(t, d));
  // Only where KFD lists partitions, so a host without them prints what it always did.
  if (!t.partitions.empty()) {
    j["partitions"] = nlohmann::ordered_json::array();
    for (const auto& p : t.partitions)
      j["partitions"].push_back({{"id", p.partition->id},
                                 {"label", cat({device_label(*t.devices[p.device].device), ":",
                                                std::to_string(p.partition->index)})},
                                 {"parent", bus_id(t, p.device)},
                                 {"index", p.partition->index},
                                 {"kfd_node", p.kfd_node}});
  }
  j["links"] = nlohmann::ordered_json::array();
  for (const auto& l : t.links) j["links"].push_back(link_json(l, bus_id(t, l.a), bus_id(t, l.b)));
  for (const auto& l : t.partition_links)
    j["links"].push_back(
        link_json(l, t.partitions[l.a].partition->id, t.partitions[l.b].partition->id));
  // Every pair of devices, whether or not a link joins them: the path without the link.
  j["pcie"] = nlohmann::ordered_json::array();
  for (size_t a = 0; a < t.devices.size(); ++a)
    for (size_t b = a + 1; b < t.devices.size(); ++b)
      j["pcie"].push_back(
          {{"a", bus_id(t, a)},
           {"b", bus_id(t, b)},
           {"class", to_string(pcie_class(pci_place(t.devices[a]), pci_place(t.devices[b]),
                                          t.host_numa_nodes))}});
  j["nics"] = nlohmann::ordered_json::array();
  for (const auto& n : t.nics) j["nics"].push_back(nic_json(t, n));
  return j;
}

}  // namespace anygpu
