// AMD and Hygon (a ROCm derivative): KFD topology gives the gfx target, matched to PCI
// functions by domain and location_id (KFD node numbers do not follow PCI order).
#include <algorithm>
#include <cerrno>
#include <optional>

#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "probe/vendors/amd_partitions.h"
#include "probe/vendors/backend.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// The GPU nodes of KFD's topology (CPU nodes have no gfx target), in node-number order.
std::vector<KfdGpuNode> read_kfd_topology(const ProbeContext& ctx) {
  std::vector<KfdGpuNode> nodes;
  auto names = ctx.host.list_dir(paths::kKfdNodes);
  if (!names) return nodes;
  for (const auto& n : *names) {
    auto node_id = parse_uint(n);
    if (!node_id) continue;  // KFD names its nodes by number
    std::string path = cat({paths::kKfdNodes, "/", n, "/properties"});
    auto text = ctx.host.read_file(path, kSmallFileBytes);
    if (!text) continue;
    auto props = parse_kfd_properties(*text);
    if (!props) {
      ctx.warn(path, props.error().message);
      continue;
    }
    auto value = [&](const char* key) {
      auto it = props->find(key);
      return it == props->end() ? std::optional<uint64_t>() : it->second;
    };
    auto gfx = value("gfx_target_version");
    auto loc = value("location_id");
    if (!gfx || *gfx == 0 || !loc) continue;
    nodes.push_back({path, value("domain").value_or(0), *loc, *gfx,
                     value("drm_render_minor").value_or(0), value("local_mem_size").value_or(0),
                     *node_id, 0});
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const auto& a, const auto& b) { return a.node_id < b.node_id; });
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].gpu_rank = static_cast<int>(i);
  return nodes;
}

const KfdGpuNode* find_node(const std::vector<KfdGpuNode>& kfd, const PciAddress& a) {
  uint64_t location = (uint64_t{a.bus} << 8) | (uint64_t{a.device} << 3) | a.function;
  for (const auto& n : kfd)
    if (n.domain == a.domain && n.location_id == location) return &n;
  return nullptr;
}

class AmdBackend final : public VendorBackend {
 public:
  void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const override {
    auto kfd = read_kfd_topology(ctx);
    auto xcp_cards = read_xcp_cards(ctx);
    for (auto* d : devices) {
      auto& dev = d->device;
      if (const auto* node = find_node(kfd, dev.pci.address)) {
        auto gfx = decode_gfx_target_version(node->gfx_target_version);
        if (gfx)
          dev.arch = *gfx;
        else
          ctx.warn(dev.pci.address.str(), cat({"KFD ", gfx.error().message}));
      }
      // amdgpu's device attributes take a runtime-PM reference: leave suspended devices be.
      if (dev.status == DeviceStatus::suspended) continue;
      std::string vram = cat({d->sysfs_dir, "/mem_info_vram_total"});
      if (auto text = ctx.host.read_value(vram)) {
        auto bytes = parse_uint(*text);
        if (bytes && *bytes > 0 && *bytes <= kMaxPlausibleMemoryBytes)
          dev.memory_total_bytes = *bytes;
        else if (bytes && *bytes > kMaxPlausibleMemoryBytes)
          ctx.warn(vram, cat({"implausible size ", *text, " bytes (over 64 PiB); ignored"}));
        else
          ctx.warn(vram, cat({"invalid byte count '", *text, "'"}));
      }
      std::string unique_id = cat({d->sysfs_dir, "/unique_id"});
      if (auto id = ctx.host.read_value(unique_id)) {
        if (id->size() <= 32 && parse_hex(*id))
          dev.uuid = "GPU-" + to_lower(*id);
        else
          ctx.warn(unique_id, cat({"invalid unique id '", *id, "'"}));
      } else if (id.error().sys_errno != ENOENT && id.error().sys_errno != ENOTDIR) {
        ctx.warn(id.error().message);  // empty, binary, a directory: present but unusable
      }
      probe_amd_partitions(ctx, *d, kfd, xcp_cards);
    }
    warn_missing_cpx_partitions(ctx, devices);
  }
};

}  // namespace

// Constant-initialised at namespace scope: a function-local static has a one-time guard that
// a fork() in a C ABI caller can strand.
constinit const AmdBackend kAmdBackend;

const VendorBackend& amd_backend() {
  return kAmdBackend;
}

}  // namespace anygpu
