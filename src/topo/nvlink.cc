#include "topo/nvlink.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr const char* kNvLinkSource = "NVML nvmlDeviceGetNvLinkRemotePciInfo_v2";

// "0000:18:00.0"; numbers out of PCI's range print whole ("0000:1ff:00.0").
std::string address_text(const NvLinkEnd& e) {
  auto h = [](uint64_t v, int digits) { return hex(v, digits).substr(2); };  // without "0x"
  return cat({h(e.domain, 4), ":", h(e.bus, 2), ":", h(e.device, 2), ".0"});
}

// NVML's "no PCI device here" far end: bus and device 0xff (NCCL's xml.cc matches the busId
// "fffffff:ff:ff.0"); device 0xff is no PCI device number, so nothing real looks like it.
bool is_sentinel(const NvLinkEnd& e) {
  return e.bus == 0xff && e.device == 0xff;
}

struct NvLinkReader {
  Topology& t;
  std::vector<std::map<size_t, int>> direct;   // per device: peer -> links
  std::vector<std::map<std::string, int>> sw;  // per device: switch far end -> links
  std::vector<size_t> fabric;                  // union-find over switch fabrics
  // Far ends of unknown type that are no device here: per far end, per device, links.
  std::map<std::string, std::map<size_t, int>> untyped;

  void warn(size_t i, unsigned link, const std::string& what) {
    t.warnings.push_back(cat({kNvLinkSource, " (", t.devices[i].device->pci.address.str(), " link ",
                              std::to_string(link), "): ", what, "; link left out"}));
  }

  std::optional<size_t> device_at(const NvLinkEnd& e) const {
    for (size_t j = 0; j < t.devices.size(); ++j) {
      const auto& a = t.devices[j].device->pci.address;
      if (a.domain == e.domain && a.bus == e.bus && a.device == e.device && a.function == 0)
        return j;
    }
    return std::nullopt;
  }

  void read_end(size_t i, const NvLinkEnd& e) {
    if (is_sentinel(e)) {
      sw[i]["sentinel"]++;
      return;
    }
    if (e.domain > 0xffffffffu || e.bus > 0xff || e.device > 0x1f) {
      warn(i, e.link, cat({"far end ", address_text(e), " is no PCI address"}));
      return;
    }
    if (e.peer == NvLinkPeer::nvswitch) {
      sw[i][address_text(e)]++;
      return;
    }
    if (e.peer == NvLinkPeer::ibm_npu) return;  // a link to the CPU (POWER9), not to a device
    auto j = device_at(e);
    if (!j && e.peer == NvLinkPeer::unknown) {
      untyped[address_text(e)][i]++;
      return;
    }
    if (!j) {
      warn(i, e.link, cat({"far end ", address_text(e), " is no accelerator of this host"}));
      return;
    }
    if (*j == i) {
      warn(i, e.link, "far end is the device itself");
      return;
    }
    direct[i][*j]++;
  }

  size_t root(size_t i) {
    while (fabric[i] != i) i = fabric[i] = fabric[fabric[i]];
    return i;
  }

  bool known(size_t i) const {
    const auto& n = t.devices[i].device->nvlink;
    return n && !n->unknown;
  }

  void add(size_t a, size_t b, int count) {
    t.links.push_back(DeviceLink{a, b, "nvlink", count, std::nullopt});
  }

  // Direct links between a and b (a < b), checked from both ends.
  int direct_count(size_t a, size_t b) {
    auto at = [&](size_t x, size_t y) {
      auto it = direct[x].find(y);
      return it == direct[x].end() ? 0 : it->second;
    };
    int ab = at(a, b), ba = at(b, a);
    auto bus = [&](size_t x) { return t.devices[x].device->pci.address.str(); };
    if (known(a) && known(b) && ab != ba) {
      t.warnings.push_back(
          cat({kNvLinkSource, ": ", bus(a), " reports ", std::to_string(ab), " NVLinks to ", bus(b),
               ", which reports ", std::to_string(ba), " back; left out"}));
      return 0;
    }
    int n = std::max(ab, ba);
    if (n > kMaxNvLinksPerPair) {
      t.warnings.push_back(
          cat({kNvLinkSource, ": ", std::to_string(n), " NVLinks between ", bus(a), " and ", bus(b),
               " (at most ", std::to_string(kMaxNvLinksPerPair), " exist); left out"}));
      return 0;
    }
    return n;
  }

  int switch_links(size_t i) const {
    int n = 0;
    for (const auto& [_, c] : sw[i]) n += c;
    return n;
  }

  void run() {
    size_t n = t.devices.size();
    direct.resize(n), sw.resize(n), fabric.resize(n);
    std::iota(fabric.begin(), fabric.end(), size_t{0});
    // One warning per reason: an NVML without the calls lacks them for every GPU.
    std::map<std::string, std::vector<std::string>> unknown;
    for (size_t i = 0; i < n; ++i) {
      const auto& facts = t.devices[i].device->nvlink;
      if (!facts) continue;
      if (facts->unknown) {
        unknown[*facts->unknown].push_back(t.devices[i].device->pci.address.str());
        continue;
      }
      for (const auto& e : facts->active) read_end(i, e);
    }
    for (const auto& [why, buses] : unknown)
      t.warnings.push_back(cat({"NVML: NVLinks of ", join(buses, ", "), " unknown: ", why}));
    // A far end NVML does not name (no nvmlDeviceGetNvLinkRemoteDeviceType, or it failed) that
    // is no device here: an NVLink joins two endpoints, so one that several GPUs reach is a
    // switch. One GPU's alone cannot be told from a GPU this host does not show.
    for (const auto& [end, per_device] : untyped)
      for (const auto& [i, links] : per_device) {
        if (per_device.size() > 1) {
          sw[i][end] += links;
          continue;
        }
        t.warnings.push_back(
            cat({kNvLinkSource, " (", t.devices[i].device->pci.address.str(),
                 "): ", std::to_string(links), " link(s) to ", end,
                 ", which is no accelerator of this host and which NVML does not name "
                 "(nvmlDeviceGetNvLinkRemoteDeviceType); left out"}));
      }
    // Two GPUs reaching one switch share its fabric.
    std::map<std::string, size_t> first_at;
    for (size_t i = 0; i < n; ++i)
      for (const auto& [end, _] : sw[i])
        if (auto [it, fresh] = first_at.emplace(end, i); !fresh) fabric[root(i)] = root(it->second);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = a + 1; b < n; ++b) {
        int count = direct_count(a, b);
        if (!sw[a].empty() && !sw[b].empty() && root(a) == root(b))
          count += std::min(switch_links(a), switch_links(b));
        if (count > 0) add(a, b, count);
      }
  }
};

}  // namespace

void add_nvlinks(Topology& t) {
  NvLinkReader{t, {}, {}, {}, {}}.run();
}

}  // namespace anygpu
