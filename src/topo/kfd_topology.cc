#include "topo/kfd_topology.h"

#include <algorithm>
#include <map>
#include <set>

#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "util/strings.h"

namespace anygpu {

namespace {

struct Directed {
  uint64_t weight;
  std::string file;
};

std::string node_text(uint64_t id) {
  return std::to_string(id);
}

std::optional<PciAddress> gpu_address(const std::map<std::string, uint64_t>& props) {
  auto value = [&](const char* key) -> std::optional<uint64_t> {
    auto it = props.find(key);
    return it == props.end() ? std::nullopt : std::optional<uint64_t>(it->second);
  };
  auto simd = value("simd_count");
  auto location = value("location_id");
  if (!simd || *simd == 0 || !location || *location > 0xffff) return std::nullopt;
  PciAddress a;
  a.domain = static_cast<uint32_t>(value("domain").value_or(0));
  a.bus = static_cast<uint8_t>(*location >> 8);
  a.device = static_cast<uint8_t>((*location >> 3) & 0x1f);
  a.function = static_cast<uint8_t>(*location & 7);
  return a;
}

// What a KFD node stands for in `t`: a whole device or one partition of a partitioned device.
struct Endpoint {
  bool partition = false;
  size_t index = 0;  // into Topology::devices or Topology::partitions
};

// xGMI links between nodes that are endpoints, keyed (from, to); the first file wins.
std::map<std::pair<uint64_t, uint64_t>, Directed> directed_xgmi(
    const std::vector<KfdNodeFacts>& nodes, const std::map<uint64_t, Endpoint>& endpoint_of,
    std::vector<std::string>& warnings) {
  std::set<uint64_t> ids;
  for (const auto& n : nodes) ids.insert(n.id);
  std::map<std::pair<uint64_t, uint64_t>, Directed> out;
  for (const auto& n : nodes) {
    for (const auto& [file, l] : n.links) {
      if (l.node_from != n.id) {
        warnings.push_back(cat({file, ": link from node ", node_text(l.node_from),
                                " in the directory of node ", node_text(n.id), "; left out"}));
        continue;
      }
      if (!ids.count(l.node_to) || l.node_to == n.id) {
        warnings.push_back(
            cat({file, ": link to node ", node_text(l.node_to),
                 l.node_to == n.id ? ", itself" : ", which does not exist", "; left out"}));
        continue;
      }
      if (l.type != kKfdLinkXgmi || !endpoint_of.count(n.id) || !endpoint_of.count(l.node_to))
        continue;
      out.try_emplace({n.id, l.node_to}, Directed{l.weight, file});
    }
  }
  return out;
}

bool has_partitions(const Device& d) {
  return d.partitioning && !d.partitions.empty();
}

// Maps GPU nodes to devices by PCI address and, on a partitioned device, to the partition whose
// index is the address's function (F-31); fills t.partitions in device, then index order.
std::map<uint64_t, Endpoint> map_nodes(const std::vector<KfdNodeFacts>& nodes, Topology& t) {
  std::map<PciAddress, size_t> index_of;
  for (size_t i = 0; i < t.devices.size(); ++i) {
    PciAddress slot = t.devices[i].device->pci.address;
    if (has_partitions(*t.devices[i].device)) slot.function = 0;
    index_of[slot] = i;
  }
  std::map<uint64_t, Endpoint> endpoint_of;
  std::vector<std::pair<std::pair<size_t, int>, uint64_t>> found;  // ((device, index), node)
  for (const auto& n : nodes) {
    if (!n.gpu_address) continue;
    PciAddress slot = *n.gpu_address;
    slot.function = 0;
    auto it = index_of.find(slot);
    if (it != index_of.end() && has_partitions(*t.devices[it->second].device)) {
      for (const auto& p : t.devices[it->second].device->partitions)
        if (p.index == n.gpu_address->function) found.push_back({{it->second, p.index}, n.id});
      continue;
    }
    if (auto exact = index_of.find(*n.gpu_address); exact != index_of.end()) {
      endpoint_of[n.id] = Endpoint{false, exact->second};
      t.devices[exact->second].kfd_node = static_cast<int>(n.id);
    }
  }
  std::sort(found.begin(), found.end());
  for (const auto& [key, node] : found) {
    if (!t.partitions.empty() && t.partitions.back().device == key.first &&
        t.partitions.back().partition->index == key.second)
      continue;  // two nodes for one partition: the first (lower node) stands for it
    const Partition* part = nullptr;
    for (const auto& p : t.devices[key.first].device->partitions)
      if (p.index == key.second) part = &p;
    endpoint_of[node] = Endpoint{true, t.partitions.size()};
    t.partitions.push_back(TopoPartition{key.first, part, static_cast<int>(node)});
  }
  return endpoint_of;
}

void sort_links(std::vector<DeviceLink>& links) {
  std::sort(links.begin(), links.end(), [](const DeviceLink& x, const DeviceLink& y) {
    return std::pair(x.a, x.b) < std::pair(y.a, y.b);
  });
}

}  // namespace

void add_kfd_links(const std::vector<KfdNodeFacts>& nodes, Topology& t) {
  auto endpoint_of = map_nodes(nodes, t);
  auto directed = directed_xgmi(nodes, endpoint_of, t.warnings);
  for (const auto& [key, there] : directed) {
    auto back = directed.find({key.second, key.first});
    std::string pair = cat({node_text(key.first), " -> ", node_text(key.second)});
    if (back == directed.end()) {
      t.warnings.push_back(cat({there.file, ": xGMI link ", pair, " has no link back; left out"}));
      continue;
    }
    if (key.first > key.second) continue;  // the pair is handled once, from its lower node
    if (back->second.weight != there.weight) {
      t.warnings.push_back(cat(
          {there.file, ": xGMI link ", pair, " has weight ", std::to_string(there.weight), " but ",
           std::to_string(back->second.weight), " back (", back->second.file, "); left out"}));
      continue;
    }
    Endpoint ea = endpoint_of.at(key.first), eb = endpoint_of.at(key.second);
    if (ea.partition != eb.partition) continue;  // a partition and a whole device: no matrix cell
    size_t a = ea.index, b = eb.index;
    if (a == b) continue;  // two nodes of one PCI function or of one partition
    if (a > b) std::swap(a, b);
    if (ea.partition) {
      if (!t.partition_link(a, b))
        t.partition_links.push_back(DeviceLink{a, b, "xgmi", std::nullopt, there.weight});
      continue;
    }
    if (t.link(a, b)) continue;  // the same two devices through other nodes of them
    t.links.push_back(DeviceLink{a, b, "xgmi", std::nullopt, there.weight});
  }
  sort_links(t.links);
  sort_links(t.partition_links);
}

namespace {

void read_node_links(const HostRoot& host, const std::string& dir, KfdNodeFacts& node,
                     std::vector<std::string>& warnings) {
  for (const char* kind : {"io_links", "p2p_links"}) {
    auto names = host.list_dir(cat({dir, "/", kind}));
    if (!names) continue;
    for (const auto& m : *names) {
      auto file = cat({dir, "/", kind, "/", m, "/properties"});
      auto text = host.read_file(file, kSmallFileBytes);
      if (!text) {
        warnings.push_back(text.error().message);
        continue;
      }
      auto link = parse_kfd_link(*text);
      if (!link) {
        warnings.push_back(cat({file, ": ", link.error().message, "; left out"}));
        continue;
      }
      node.links.emplace_back(file, *link);
    }
  }
}

}  // namespace

void read_kfd_links(const HostRoot& host, Topology& t) {
  auto names = host.list_dir(paths::kKfdNodes);
  if (!names) return;
  std::vector<KfdNodeFacts> nodes;
  for (const auto& n : *names) {
    auto id = parse_uint(n);
    if (!id) continue;
    std::string dir = cat({paths::kKfdNodes, "/", n});
    auto file = cat({dir, "/properties"});
    auto text = host.read_file(file, kSmallFileBytes);
    if (!text) continue;
    auto props = parse_kfd_properties(*text);
    if (!props) {
      // The node exists (links to it are not "to a node that does not exist"); its own are lost.
      t.warnings.push_back(cat({file, ": ", props.error().message, "; its links left out"}));
      nodes.push_back(KfdNodeFacts{*id, std::nullopt, {}});
      continue;
    }
    KfdNodeFacts node{*id, gpu_address(*props), {}};
    read_node_links(host, dir, node, t.warnings);
    nodes.push_back(std::move(node));
  }
  add_kfd_links(nodes, t);
}

}  // namespace anygpu
