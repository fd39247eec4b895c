#include "topo/closeness.h"

#include <algorithm>

#include "topo/kfd_link.h"

namespace anygpu {

int direct_link_count(const DeviceLink& l) {
  if (l.count) return std::max(0, *l.count);
  if (l.kind == "xgmi" && l.weight && is_one_xgmi_hop(*l.weight)) return 1;
  if (l.kind == "hccs") return 1;  // DCMI names the relation only: linked, lanes not counted
  return 0;
}

const DirectLink* Closeness::link(const std::string& a, const std::string& b) const {
  auto it = links.find(a < b ? std::pair(a, b) : std::pair(b, a));
  return it == links.end() ? nullptr : &it->second;
}

Closeness closeness_of(const Topology& t) {
  Closeness c;
  auto bus = [&](size_t i) { return t.devices[i].device->pci.address.str(); };
  for (const auto& l : t.links) {
    int n = direct_link_count(l);
    if (n <= 0) continue;
    auto a = bus(l.a), b = bus(l.b);
    c.links[a < b ? std::pair(a, b) : std::pair(b, a)] = DirectLink{l.kind, n, l.weight};
  }
  for (const auto& l : t.partition_links) {
    int n = direct_link_count(l);
    if (n <= 0) continue;
    const auto& a = t.partitions[l.a].partition->id;
    const auto& b = t.partitions[l.b].partition->id;
    c.links[a < b ? std::pair(a, b) : std::pair(b, a)] = DirectLink{l.kind, n, l.weight};
  }
  for (size_t i = 0; i < t.devices.size(); ++i) {
    const auto& d = t.devices[i];
    // Two paths share a bridge exactly when their first elements match (pcie_class()).
    if (d.pci_path && d.pci_path->size() >= 2 && !d.root_complex.empty())
      c.pcie_switch[bus(i)] = d.root_complex + "/" + d.pci_path->front();
  }
  return c;
}

namespace {

const DeviceLink* direct_link_between(const Topology& t, size_t a, size_t b) {
  const auto* l = t.link(a, b);
  return l && direct_link_count(*l) > 0 ? l : nullptr;
}

}  // namespace

std::vector<LinkDomain> link_domains(const Topology& t) {
  std::vector<LinkDomain> out;
  std::vector<bool> taken(t.devices.size(), false);
  for (size_t first = 0; first < t.devices.size(); ++first) {
    if (taken[first]) continue;
    LinkDomain d{{}, {first}};
    for (size_t j = first + 1; j < t.devices.size(); ++j) {
      if (taken[j]) continue;
      bool all = true;
      for (size_t m : d.devices) {
        const auto* l = direct_link_between(t, m, j);
        all = all && l && (d.kind.empty() || l->kind == d.kind);
      }
      if (!all) continue;
      if (d.kind.empty()) d.kind = direct_link_between(t, first, j)->kind;
      d.devices.push_back(j);
    }
    if (d.devices.size() < 2) continue;
    for (size_t m : d.devices) taken[m] = true;
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const LinkDomain& a, const LinkDomain& b) {
    return a.devices.size() > b.devices.size();
  });
  return out;
}

}  // namespace anygpu
