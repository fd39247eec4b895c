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

// xGMI links between nodes that are devices of `t`, keyed (from, to); the first file wins.
std::map<std::pair<uint64_t, uint64_t>, Directed> directed_xgmi(
    const std::vector<KfdNodeFacts>& nodes, const std::map<uint64_t, size_t>& device_of,
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
      if (l.type != kKfdLinkXgmi || !device_of.count(n.id) || !device_of.count(l.node_to)) continue;
      out.try_emplace({n.id, l.node_to}, Directed{l.weight, file});
    }
  }
  return out;
}

}  // namespace

void add_kfd_links(const std::vector<KfdNodeFacts>& nodes, Topology& t) {
  std::map<PciAddress, size_t> index_of;
  for (size_t i = 0; i < t.devices.size(); ++i) index_of[t.devices[i].device->pci.address] = i;
  std::map<uint64_t, size_t> device_of;
  for (const auto& n : nodes) {
    if (!n.gpu_address) continue;
    if (auto it = index_of.find(*n.gpu_address); it != index_of.end()) {
      device_of[n.id] = it->second;
      t.devices[it->second].kfd_node = static_cast<int>(n.id);
    }
  }
  auto directed = directed_xgmi(nodes, device_of, t.warnings);
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
    size_t a = device_of.at(key.first), b = device_of.at(key.second);
    if (a == b) continue;        // two nodes of one PCI function: a partitioned device's own links
    if (t.link(a, b)) continue;  // the same two devices through other nodes of them
    if (a > b) std::swap(a, b);
    t.links.push_back(DeviceLink{a, b, "xgmi", std::nullopt, there.weight});
  }
  std::sort(t.links.begin(), t.links.end(), [](const DeviceLink& x, const DeviceLink& y) {
    return std::pair(x.a, x.b) < std::pair(y.a, y.b);
  });
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
