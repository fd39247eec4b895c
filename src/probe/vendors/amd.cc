// AMD and Hygon (a ROCm derivative): KFD topology gives the gfx target, matched to PCI
// functions by domain and location_id (KFD node numbers do not follow PCI order).
#include <cerrno>
#include <map>

#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "probe/vendors/backend.h"
#include "util/strings.h"

namespace anygpu {

namespace {

struct KfdNode {
  uint64_t gfx_target_version = 0;
};

// (domain, location_id) -> node facts, for GPU nodes only.
std::map<std::pair<uint64_t, uint64_t>, KfdNode> read_kfd_topology(const ProbeContext& ctx) {
  std::map<std::pair<uint64_t, uint64_t>, KfdNode> nodes;
  auto names = ctx.host.list_dir(paths::kKfdNodes);
  if (!names) return nodes;
  for (const auto& n : *names) {
    std::string path = cat({paths::kKfdNodes, "/", n, "/properties"});
    auto text = ctx.host.read_file(path, kSmallFileBytes);
    if (!text) continue;
    auto props = parse_kfd_properties(*text);
    if (!props) {
      ctx.warn(path, props.error().message);
      continue;
    }
    auto gfx = props->find("gfx_target_version");
    auto loc = props->find("location_id");
    if (gfx == props->end() || gfx->second == 0 || loc == props->end()) continue;
    auto dom = props->find("domain");
    nodes[{dom == props->end() ? 0 : dom->second, loc->second}] = {gfx->second};
  }
  return nodes;
}

class AmdBackend final : public VendorBackend {
 public:
  void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const override {
    auto kfd = read_kfd_topology(ctx);
    for (auto* d : devices) {
      auto& dev = d->device;
      const auto& a = dev.pci.address;
      uint64_t location = (uint64_t{a.bus} << 8) | (uint64_t{a.device} << 3) | a.function;
      if (auto it = kfd.find({a.domain, location}); it != kfd.end()) {
        auto gfx = decode_gfx_target_version(it->second.gfx_target_version);
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
    }
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
