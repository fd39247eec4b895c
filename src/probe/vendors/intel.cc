// Intel: tiles (stacks) of a Data Center GPU Max card as partitions. The kernel shows them
// without any library: i915 as `<card>/gt/gt<N>`, Xe as `<PCI device>/tile<N>`
// (intel/intel-device-plugins-for-kubernetes cmd/internal/labeler/labeler.go, facts F-41).
// Level Zero's driver exposes each tile as a device of its own by default
// (ZE_FLAT_DEVICE_HIERARCHY=FLAT, F-40), so on a multi-tile card the tile is the unit.
#include <algorithm>

#include "host/paths.h"
#include "probe/partition_parse.h"
#include "probe/vendors/backend.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// An integrated GPU's i915 `gt/gt1` is its standalone media GT (Meteor Lake on), not a tile;
// Intel's integrated graphics sits at 00:02.0 on every platform.
bool integrated(const ProbeContext& ctx, const Device& dev) {
  const auto* spec = ctx.registry.device("intel", dev.pci.device_id);
  if (spec && spec->integrated) return true;
  return dev.pci.address.domain == 0 && dev.pci.address.bus == 0 && dev.pci.address.device == 2;
}

// Where the driver lists tiles, and the prefix of their names.
std::optional<std::pair<std::string, std::string>> tile_dir(const PciDevice& d) {
  const auto& dev = d.device;
  if (!dev.driver) return std::nullopt;
  if (dev.driver->name == "xe") return std::pair(d.sysfs_dir, std::string("tile"));
  if (dev.driver->name == "i915" && dev.card_node) {
    auto card = dev.card_node->substr(dev.card_node->rfind('/') + 1);
    return std::pair(cat({d.sysfs_dir, "/drm/", card, "/gt"}), std::string("gt"));
  }
  return std::nullopt;
}

// The tile numbers the driver lists, when they are 0..n-1 and n is a count Intel GPUs have;
// otherwise a warning naming the directory, and none (the card stays whole).
std::vector<int> tiles_of(const ProbeContext& ctx, const std::string& dir,
                          const std::string& prefix) {
  auto entries = ctx.host.list_dir(dir);
  if (!entries) return {};
  auto tiles = parse_tile_names(*entries, prefix);
  if (!tiles) {
    ctx.warn(dir, cat({tiles.error().message, "; reported as one device"}));
    return {};
  }
  return *tiles;
}

class IntelBackend final : public VendorBackend {
 public:
  void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const override {
    for (auto* d : devices) {
      auto& dev = d->device;
      // Tiles are read from the driver's directories: a device without its driver has none.
      if (!dev.bound() || integrated(ctx, dev)) continue;
      auto where = tile_dir(*d);
      if (!where) continue;
      auto tiles = tiles_of(ctx, where->first, where->second);
      if (tiles.empty()) continue;
      dev.partitioning = Partitioning{"tiles", std::nullopt};
      // Each tile is a stack with its own HBM, an even share of the card's (Max 1550: 2 × 64
      // GiB). The kernel gives no per-tile size, so the share of the model's nominal memory
      // (the registry's, as for the card) stands in; unknown where the model is.
      std::optional<uint64_t> share;
      if (const auto* spec = ctx.registry.device("intel", dev.pci.device_id);
          spec && spec->memory_gib)
        share = static_cast<uint64_t>(*spec->memory_gib * 1024 * 1024 * 1024) / tiles.size();
      for (int t : tiles) {
        Partition p;
        p.index = t;
        p.id = cat({dev.pci.address.str(), "/", std::to_string(t)});
        // A tile has no node of its own: the card's nodes reach every tile, and the runtime's
        // ZE_AFFINITY_MASK picks the tile.
        for (const auto& node : {dev.card_node, dev.render_node})
          if (node && ctx.host.exists(*node)) p.device_nodes.push_back(*node);
        p.render_node = dev.render_node;
        p.memory_total_bytes = share;
        dev.partitions.push_back(std::move(p));
      }
    }
  }
};

}  // namespace

// Constant-initialised at namespace scope: a function-local static has a one-time guard that
// a fork() in a C ABI caller can strand.
constinit const IntelBackend kIntelBackend;

const VendorBackend& intel_backend() {
  return kIntelBackend;
}

}  // namespace anygpu
