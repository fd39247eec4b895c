#include "probe/vendors/nvidia_mig.h"

#include <algorithm>
#include <optional>

#include "host/paths.h"
#include "probe/partition_parse.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// "gi12" -> 12 within [0, limit); nullopt for any other entry.
std::optional<int> numbered(std::string_view entry, std::string_view prefix, int limit) {
  if (entry.substr(0, prefix.size()) != prefix) return std::nullopt;
  auto n = parse_uint(entry.substr(prefix.size()));
  if (!n || *n >= static_cast<uint64_t>(limit)) return std::nullopt;
  return static_cast<int>(*n);
}

// The minor an access file gives, checked against the driver's formula and mig-minors.
std::optional<int> cap_minor(const ProbeContext& ctx, const std::string& path, MigCap want,
                             const std::vector<MigCap>* table) {
  auto text = ctx.host.read_file(path, kSmallFileBytes);
  if (!text) {
    ctx.warn(text.error().message);
    return std::nullopt;
  }
  auto minor = parse_nv_cap_access_minor(*text);
  if (!minor) {
    ctx.warn(cat({path, ": ", minor.error().message}));
    return std::nullopt;
  }
  int expected = mig_cap_minor(want.gpu, want.gi, want.ci);
  if (*minor != expected) {
    ctx.warn(cat({path, ": minor ", std::to_string(*minor), " is not the driver's ",
                  std::to_string(expected), "; MIG instances of this GPU not reported"}));
    return std::nullopt;
  }
  want.minor = expected;
  if (table && std::find(table->begin(), table->end(), want) == table->end()) {
    ctx.warn(cat({path, ": minor ", std::to_string(expected), " is missing from ",
                  paths::kNvidiaMigMinors, "; MIG instances of this GPU not reported"}));
    return std::nullopt;
  }
  return expected;
}

struct Instance {
  int gi, ci, gi_minor, ci_minor;
};

// Every compute instance of GPU `minor`, in (GI, CI) order; nullopt when a file lies.
std::optional<std::vector<Instance>> read_instances(const ProbeContext& ctx, int minor,
                                                    const std::vector<MigCap>* table) {
  std::vector<Instance> out;
  std::string mig = cat({paths::kNvidiaCapabilities, "/gpu", std::to_string(minor), "/mig"});
  auto gis = ctx.host.list_dir(mig);
  if (!gis) return out;
  std::vector<int> gi_ids;
  for (const auto& e : *gis)
    if (auto gi = numbered(e, "gi", kMigMaxGis)) gi_ids.push_back(*gi);
  std::sort(gi_ids.begin(), gi_ids.end());
  for (int gi : gi_ids) {
    std::string gi_dir = cat({mig, "/gi", std::to_string(gi)});
    auto gi_minor = cap_minor(ctx, gi_dir + "/access", {minor, gi, std::nullopt, 0}, table);
    if (!gi_minor) return std::nullopt;
    std::vector<int> ci_ids;
    if (auto cis = ctx.host.list_dir(gi_dir))
      for (const auto& e : *cis)
        if (auto ci = numbered(e, "ci", kMigMaxCis)) ci_ids.push_back(*ci);
    std::sort(ci_ids.begin(), ci_ids.end());
    for (int ci : ci_ids) {
      std::string path = cat({gi_dir, "/ci", std::to_string(ci), "/access"});
      auto ci_minor = cap_minor(ctx, path, {minor, gi, ci, 0}, table);
      if (!ci_minor) return std::nullopt;
      out.push_back({gi, ci, *gi_minor, *ci_minor});
    }
  }
  return out;
}

// The majors of /dev/nvidiaN ("nvidia-frontend", fixed at 195 by the driver) and of the cap
// nodes ("nvidia-caps", given out by alloc_chrdev_region at load), from /proc/devices.
struct MigMajors {
  std::optional<int> gpu, caps;
};

// A MIG device needs its parent GPU's node and the GI and CI capability nodes (F-5). They are
// listed even where the host has not created the cap nodes: a container runtime can make them
// from their numbers.
Partition make_partition(const Device& dev, int index, const Instance& in,
                         const MigMajors& majors) {
  Partition p;
  p.index = index;
  p.id = cat({dev.pci.address.str(), "/", std::to_string(index)});
  p.gpu_instance = in.gi;
  p.compute_instance = in.ci;
  auto parent = "/dev/nvidia" + std::to_string(*dev.minor);
  auto gi = "/dev/nvidia-caps/nvidia-cap" + std::to_string(in.gi_minor);
  auto ci = "/dev/nvidia-caps/nvidia-cap" + std::to_string(in.ci_minor);
  p.device_nodes = {parent, gi, ci};
  auto u = [](int n) { return static_cast<uint32_t>(n); };
  if (majors.gpu) p.node_numbers.push_back({parent, u(*majors.gpu), u(*dev.minor)});
  if (majors.caps) {
    p.node_numbers.push_back({gi, u(*majors.caps), u(in.gi_minor)});
    p.node_numbers.push_back({ci, u(*majors.caps), u(in.ci_minor)});
  }
  return p;
}

}  // namespace

void probe_mig_partitions(const ProbeContext& ctx, std::vector<PciDevice*>& devices) {
  if (!ctx.host.exists(paths::kNvidiaCapabilities)) return;
  std::optional<std::vector<MigCap>> table;
  if (auto text = ctx.host.read_file(paths::kNvidiaMigMinors, 1 << 20)) {
    auto parsed = parse_mig_minors(*text);
    if (!parsed) {
      ctx.warn(cat(
          {paths::kNvidiaMigMinors, ": ", parsed.error().message, "; MIG instances not reported"}));
      return;
    }
    table = std::move(*parsed);
  }
  // Read before the instances so each partition carries its nodes' numbers; judged (and
  // warned about) only on a host that has instances.
  auto devices_text = ctx.host.read_file(paths::kProcDevices, kSmallFileBytes);
  Result<int> caps_major = devices_text ? parse_proc_devices_major(*devices_text, "nvidia-caps")
                                        : Result<int>(devices_text.error());
  MigMajors majors;
  if (caps_major) majors.caps = *caps_major;
  if (devices_text)
    if (auto gpu = parse_proc_devices_major(*devices_text, "nvidia-frontend")) majors.gpu = *gpu;
  bool any = false;
  for (auto* d : devices) {
    auto& dev = d->device;
    if (!dev.minor) continue;
    auto instances = read_instances(ctx, *dev.minor, table ? &*table : nullptr);
    if (!instances || instances->empty()) continue;
    dev.partitioning = Partitioning{"mig", std::nullopt};
    for (size_t i = 0; i < instances->size(); ++i)
      dev.partitions.push_back(make_partition(dev, static_cast<int>(i), (*instances)[i], majors));
    any = true;
  }
  // Without the cap nodes' major no runtime can make them: a host must already have them.
  if (any && !caps_major)
    ctx.warn(devices_text ? cat({paths::kProcDevices, ": ", caps_major.error().message})
                          : caps_major.error().message);
}

}  // namespace anygpu
