// Ascend: /dev/davinciN is numbered by the NPU's physical id, which the driver exposes as the
// PCI device's `dev_id` attribute and which does not follow PCI bus order on Atlas servers.
// vNPUs (static virtual instances, `npu-smi set -t create-vnpu`) appear as /dev/vdavinci<id>,
// their id naming the parent NPU's physical id (facts F-43, F-46): they are its partitions.
#include <algorithm>
#include <map>

#include "host/paths.h"
#include "probe/partition_parse.h"
#include "probe/vendors/backend.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// Every /dev/vdavinci<id> by its parent NPU's physical id, in slot order. A node whose name is
// not a vNPU id is a warning naming it.
std::map<int, std::vector<VnpuId>> read_vnpu_nodes(const ProbeContext& ctx) {
  std::map<int, std::vector<VnpuId>> out;
  auto dev = paths::kDevfsPrefix.substr(0, paths::kDevfsPrefix.size() - 1);
  auto entries = ctx.host.list_dir(dev);
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (!e.starts_with("vdavinci")) continue;
    auto v = parse_vnpu_node(e);
    if (!v) {
      ctx.warn(cat({dev, "/", e}), cat({v.error().message, "; ignored"}));
      continue;
    }
    // Asked by path as well as listed: what reads a host by its paths (`gather`) then has it.
    if (!ctx.host.exists(cat({dev, "/", e}))) continue;
    out[v->npu].push_back(*v);
  }
  for (auto& [npu, list] : out)
    std::sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.slot < b.slot; });
  return out;
}

void add_vnpus(Device& dev, const std::vector<VnpuId>& vnpus) {
  dev.partitioning = Partitioning{"vnpu", std::nullopt};
  for (const auto& v : vnpus) {
    Partition p;
    p.index = v.slot;
    p.id = cat({dev.pci.address.str(), "/", std::to_string(v.slot)});
    p.device_nodes.push_back(cat({paths::kDevfsPrefix, "vdavinci", std::to_string(v.id)}));
    // The container runtime's id for it: ASCEND_VISIBLE_DEVICES=<vnpu id> (F-45, F-46).
    p.runtime_index = v.id;
    dev.partitions.push_back(std::move(p));
  }
}

}  // namespace

class AscendBackend final : public VendorBackend {
 public:
  void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const override {
    for (auto* d : devices) {
      auto& dev = d->device;
      std::string path = d->sysfs_dir + "/dev_id";
      if (auto text = ctx.host.read_value(path)) {
        auto id = parse_uint(*text);
        if (id && *id < 1024)
          dev.minor = static_cast<int>(*id);
        else
          ctx.warn(path, cat({"invalid NPU id '", *text, "'"}));
      }
      // Without dev_id, the driver numbers NPUs in probe order, which is PCI order.
      if (!dev.minor) dev.minor = dev.index;
    }
    auto vnpus = read_vnpu_nodes(ctx);
    for (auto& [npu, list] : vnpus) {
      PciDevice* parent = nullptr;
      for (auto* d : devices)
        if (d->device.minor == npu && d->device.bound()) parent = d;
      if (!parent) {
        for (const auto& v : list)
          ctx.warn(cat({paths::kDevfsPrefix, "vdavinci", std::to_string(v.id)}),
                   cat({"a vNPU of NPU ", std::to_string(npu),
                        ", which this host does not have (bound to its driver); ignored"}));
        continue;
      }
      add_vnpus(parent->device, list);
    }
  }
};

// Constant-initialised at namespace scope: a function-local static has a one-time guard that
// a fork() in a C ABI caller can strand.
constinit const AscendBackend kAscendBackend;

const VendorBackend& ascend_backend() {
  return kAscendBackend;
}

}  // namespace anygpu
