#include "probe/vendors/amd_partitions.h"

#include <algorithm>

#include "host/paths.h"
#include "probe/partition_parse.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr int kMaxXcp = 8;  // amdgpu_xcp.h MAX_XCP

struct Modes {
  std::string compute;
  std::optional<std::string> memory;
};

// The device's mode files, cross-checked; nullopt when absent or when one of them lies.
std::optional<Modes> read_modes(const ProbeContext& ctx, const std::string& dir) {
  std::string mode_path = dir + "/current_compute_partition";
  auto text = ctx.optional_value(mode_path);
  if (!text) return std::nullopt;
  auto mode = parse_amd_compute_mode(*text);
  if (!mode) {
    ctx.warn(cat({mode_path, ": ", mode.error().message}));
    return std::nullopt;
  }
  std::string avail_path = dir + "/available_compute_partition";
  if (auto avail_text = ctx.optional_value(avail_path)) {
    auto avail = parse_amd_compute_modes(*avail_text);
    if (!avail) {
      ctx.warn(cat({avail_path, ": ", avail.error().message}));
    } else if (std::find(avail->begin(), avail->end(), *mode) == avail->end()) {
      ctx.warn(cat({mode_path, ": ", *mode, " is not a mode this device can have (", avail_path,
                    ": ", join(*avail, ", "), "); reported as one device"}));
      return std::nullopt;
    }
  }
  Modes m{*mode, std::nullopt};
  std::string mem_path = dir + "/current_memory_partition";
  if (auto mem_text = ctx.optional_value(mem_path)) {
    auto mem = parse_amd_memory_mode(*mem_text);
    if (!mem)
      ctx.warn(cat({mem_path, ": ", mem.error().message}));
    else
      m.memory = *mem;
  }
  return m;
}

std::vector<const KfdGpuNode*> nodes_of(const PciAddress& a, const std::vector<KfdGpuNode>& kfd) {
  uint64_t slot = (uint64_t{a.bus} << 5) | a.device;  // location_id without its function bits
  std::vector<const KfdGpuNode*> mine;
  for (const auto& n : kfd)
    if (n.domain == a.domain && (n.location_id >> 3) == slot) mine.push_back(&n);
  std::sort(mine.begin(), mine.end(),
            [](auto* x, auto* y) { return (x->location_id & 7) < (y->location_id & 7); });
  return mine;
}

// The KFD nodes agree with the mode: no index twice, no more than the mode makes.
bool nodes_fit_mode(const ProbeContext& ctx, const std::string& mode_path, const Modes& m,
                    const std::vector<const KfdGpuNode*>& nodes) {
  for (size_t i = 1; i < nodes.size(); ++i)
    if ((nodes[i]->location_id & 7) == (nodes[i - 1]->location_id & 7)) {
      ctx.warn(cat({nodes[i]->path, ": partition ", std::to_string(nodes[i]->location_id & 7),
                    " appears twice in KFD; reported as one device"}));
      return false;
    }
  size_t most = static_cast<size_t>(amd_partitions_in_mode(m.compute).value_or(kMaxXcp));
  if (nodes.empty() || nodes.size() > most) {
    ctx.warn(cat({mode_path, ": says ", m.compute, " but KFD lists ", std::to_string(nodes.size()),
                  " node(s) for this device (at most ", std::to_string(most),
                  "); reported as one device"}));
    return false;
  }
  return true;
}

Partition make_partition(const ProbeContext& ctx, const Device& dev, const KfdGpuNode& n,
                         const std::map<uint64_t, std::string>& xcp_cards) {
  Partition p;
  p.index = static_cast<int>(n.location_id & 7);
  p.id = cat({dev.pci.address.str(), "/", std::to_string(p.index)});
  p.runtime_index = n.gpu_rank;
  std::optional<std::string> card;
  if (p.index == 0)
    card = dev.card_node;  // partition 0 is the PCI device's own DRM device
  else if (auto it = xcp_cards.find(n.render_minor); it != xcp_cards.end())
    card = it->second;
  if (card && ctx.host.exists(*card)) p.device_nodes.push_back(*card);
  if (n.render_minor > 0) {
    p.render_node = cat({paths::kDevDri, "/renderD", std::to_string(n.render_minor)});
    if (ctx.host.exists(*p.render_node)) p.device_nodes.push_back(*p.render_node);
  }
  // Older KFD reports 0 for a partition's local memory: then it stays unknown.
  if (n.local_mem_size > 0 && n.local_mem_size <= kMaxPlausibleMemoryBytes)
    p.memory_total_bytes = n.local_mem_size;
  return p;
}

}  // namespace

std::map<uint64_t, std::string> read_xcp_cards(const ProbeContext& ctx) {
  std::map<uint64_t, std::string> cards;
  auto entries = ctx.host.list_dir(paths::kPlatformDevices);
  if (!entries) return cards;
  for (const auto& e : *entries) {
    // Older kernels name them amdgpu_xcp.<N>, newer amdgpu_xcp_<N> (F-27): accept both.
    if (e.rfind("amdgpu_xcp_", 0) != 0 && e.rfind("amdgpu_xcp.", 0) != 0) continue;
    auto drm = ctx.host.list_dir(cat({paths::kPlatformDevices, "/", e, "/drm"}));
    if (!drm) continue;
    std::optional<uint64_t> render;
    std::optional<std::string> card;
    for (const auto& n : *drm) {
      if (n.rfind("renderD", 0) == 0) render = parse_uint(n.substr(7));
      if (n.rfind("card", 0) == 0 && parse_uint(n.substr(4))) card = cat({paths::kDevDri, "/", n});
    }
    if (render && card) cards[*render] = *card;
  }
  return cards;
}

void probe_amd_partitions(const ProbeContext& ctx, PciDevice& d, const std::vector<KfdGpuNode>& kfd,
                          const std::map<uint64_t, std::string>& xcp_cards) {
  auto& dev = d.device;
  auto modes = read_modes(ctx, d.sysfs_dir);
  if (!modes) return;
  auto nodes = nodes_of(dev.pci.address, kfd);
  std::string mode_path = d.sysfs_dir + "/current_compute_partition";
  // SPX is one logical device, the device itself; a host without KFD cannot contradict it.
  if (modes->compute == "SPX" && nodes.size() <= 1) return;
  if (!nodes_fit_mode(ctx, mode_path, *modes, nodes) || modes->compute == "SPX") return;
  if (modes->memory && amd_memory_partitions(*modes->memory) > static_cast<int>(nodes.size())) {
    ctx.warn(cat({d.sysfs_dir, "/current_memory_partition: ", *modes->memory,
                  " has more memory partitions than the ", std::to_string(nodes.size()),
                  " compute partitions; memory mode left out"}));
    modes->memory.reset();
  }
  if (auto n = amd_partitions_in_mode(modes->compute); n && nodes.size() < size_t(*n))
    ctx.warn(cat({dev.pci.address.str(), ": ", modes->compute, " makes ", std::to_string(*n),
                  " partitions but KFD lists ", std::to_string(nodes.size()),
                  "; the missing ones are not reported"}));
  dev.partitioning = Partitioning{modes->compute, modes->memory};
  for (const auto* n : nodes) dev.partitions.push_back(make_partition(ctx, dev, *n, xcp_cards));
}

void warn_missing_cpx_partitions(const ProbeContext& ctx, const std::vector<PciDevice*>& devices) {
  std::map<uint16_t, size_t> most;
  for (const auto* d : devices)
    if (d->device.partitioning && d->device.partitioning->mode == "CPX")
      most[d->device.pci.device_id] =
          std::max(most[d->device.pci.device_id], d->device.partitions.size());
  for (const auto* d : devices) {
    const auto& dev = d->device;
    if (!dev.partitioning || dev.partitioning->mode != "CPX") continue;
    size_t peers = most[dev.pci.device_id];
    if (dev.partitions.size() < peers)
      ctx.warn(cat({dev.pci.address.str(), ": CPX shows ", std::to_string(dev.partitions.size()),
                    " partitions in KFD where the same model shows ", std::to_string(peers),
                    "; the kernel skips a partition when it runs out of DRM minors"}));
  }
}

}  // namespace anygpu
