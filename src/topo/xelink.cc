#include "topo/xelink.h"

#include <algorithm>
#include <map>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr const char* kXeLinkSource = "Level Zero zeFabricEdgeGetExp";

bool is_intel_gpu(const TopoDevice& d) {
  return d.device->vendor == "intel";
}

// The cards Xe Link joins (F-66): Data Center GPU Max, the xe-hpc architecture.
bool is_max_gpu(const TopoDevice& d) {
  return is_intel_gpu(d) && d.device->arch == "xe-hpc";
}

}  // namespace

bool add_xe_links(Topology& t) {
  size_t maxes = 0, answered = 0;
  std::map<std::string, std::vector<std::string>> unknown;  // why -> bus ids
  std::map<std::pair<size_t, size_t>, int> said;            // (from, to) -> edges, as each end said
  auto index_of = [&](const PciAddress& a) -> std::optional<size_t> {
    for (size_t j = 0; j < t.devices.size(); ++j)
      if (is_intel_gpu(t.devices[j]) && t.devices[j].device->pci.address == a) return j;
    return std::nullopt;
  };
  for (size_t i = 0; i < t.devices.size(); ++i) {
    if (!is_intel_gpu(t.devices[i])) continue;
    bool max = is_max_gpu(t.devices[i]);
    maxes += max;
    const auto& dev = *t.devices[i].device;
    if (!dev.xelink) continue;
    if (dev.xelink->unknown) {
      if (max) unknown[*dev.xelink->unknown].push_back(dev.pci.address.str());
      continue;
    }
    answered += max;
    for (const auto& peer : dev.xelink->peers) {
      auto j = index_of(peer.address);
      auto where = cat({kXeLinkSource, " (", dev.pci.address.str(), "): "});
      if (!j)
        t.warnings.push_back(cat({where, "far end ", peer.address.str(),
                                  " is no Intel GPU of this host; link left out"}));
      else if (*j == i)
        t.warnings.push_back(cat({where, "far end is the GPU itself; link left out"}));
      else
        said[{i, *j}] = peer.edges;
    }
  }
  auto answered_for = [&](size_t j) {
    const auto& x = t.devices[j].device->xelink;
    return x && !x->unknown;
  };
  for (const auto& [ends, edges] : said) {
    auto [i, j] = ends;
    auto back = said.find({j, i});
    if (back != said.end() && i > j) continue;  // the pair, once
    auto from = t.devices[i].device->pci.address.str();
    auto to = t.devices[j].device->pci.address.str();
    if (back == said.end() && answered_for(j)) {
      t.warnings.push_back(cat({kXeLinkSource, ": ", from, " reports Xe Link to ", to,
                                ", which does not report it back; left out"}));
      continue;
    }
    if (back != said.end() && back->second != edges) {
      t.warnings.push_back(
          cat({kXeLinkSource, ": ", from, " and ", to, " disagree on their Xe Link edges (",
               std::to_string(edges), " and ", std::to_string(back->second), "); left out"}));
      continue;
    }
    t.links.push_back(DeviceLink{std::min(i, j), std::max(i, j), "xelink", edges, std::nullopt});
  }
  if (maxes >= 2)
    for (const auto& [why, buses] : unknown)
      t.warnings.push_back(cat({"Level Zero: Xe Link of ", join(buses, ", "), " unknown: ", why}));
  return maxes > 0 && answered == maxes;
}

}  // namespace anygpu
