#include "topo/hccs.h"

#include <algorithm>
#include <map>
#include <set>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr const char* kHccsSource = "DCMI dcmi_get_topo_info_by_device_id";

bool is_npu(const TopoDevice& d) {
  return d.device->vendor == "ascend";
}

}  // namespace

bool add_hccs_links(Topology& t) {
  size_t npus = 0, answered = 0;
  std::map<std::string, std::vector<std::string>> unknown;  // why -> bus ids
  std::set<std::pair<size_t, size_t>> said;                 // (from, to) as each end reported
  auto index_of = [&](const PciAddress& a) -> std::optional<size_t> {
    for (size_t j = 0; j < t.devices.size(); ++j)
      if (is_npu(t.devices[j]) && t.devices[j].device->pci.address == a) return j;
    return std::nullopt;
  };
  for (size_t i = 0; i < t.devices.size(); ++i) {
    if (!is_npu(t.devices[i])) continue;
    ++npus;
    const auto& dev = *t.devices[i].device;
    if (!dev.hccs) continue;
    if (dev.hccs->unknown) {
      unknown[*dev.hccs->unknown].push_back(dev.pci.address.str());
      continue;
    }
    ++answered;
    for (const auto& peer : dev.hccs->peers) {
      auto j = index_of(peer);
      auto where = cat({kHccsSource, " (", dev.pci.address.str(), "): "});
      if (!j)
        t.warnings.push_back(
            cat({where, "far end ", peer.str(), " is no NPU of this host; link left out"}));
      else if (*j == i)
        t.warnings.push_back(cat({where, "far end is the NPU itself; link left out"}));
      else
        said.insert({i, *j});
    }
  }
  auto answered_for = [&](size_t i) {
    const auto& h = t.devices[i].device->hccs;
    return h && !h->unknown;
  };
  for (auto [i, j] : said) {
    bool back = said.contains({j, i});
    if (back && i > j) continue;  // the pair, once
    if (!back && answered_for(j)) {
      t.warnings.push_back(cat({kHccsSource, ": ", t.devices[i].device->pci.address.str(),
                                " reports HCCS to ", t.devices[j].device->pci.address.str(),
                                ", which does not report it back; left out"}));
      continue;
    }
    t.links.push_back(
        DeviceLink{std::min(i, j), std::max(i, j), "hccs", std::nullopt, std::nullopt});
  }
  for (const auto& [why, buses] : unknown)
    t.warnings.push_back(cat({"DCMI: HCCS links of ", join(buses, ", "), " unknown: ", why}));
  return npus > 0 && answered == npus;
}

}  // namespace anygpu
