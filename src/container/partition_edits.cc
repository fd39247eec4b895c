#include "container/partition_edits.h"

#include <algorithm>

#include "host/paths.h"

namespace anygpu {

namespace {

// Whether the vendor's DRM rule passes this node ("card", "render"); non-DRM nodes always pass.
bool drm_rule_allows(const Vendor& vendor, std::string_view path) {
  auto dri = std::string(paths::kDevDri) + "/";
  if (!path.starts_with(dri)) return true;
  auto name = path.substr(dri.size());
  auto allowed = [&](std::string_view kind) {
    return std::find(vendor.container.drm.begin(), vendor.container.drm.end(), kind) !=
           vendor.container.drm.end();
  };
  if (name.starts_with("renderD")) return allowed("render");
  if (name.starts_with("card")) return allowed("card");
  return false;
}

const CharDeviceNumber* number_of(const Partition& p, std::string_view path) {
  for (const auto& n : p.node_numbers)
    if (n.path == path) return &n;
  return nullptr;
}

// Ascend's container runtime mounts a vNPU's /dev/vdavinci<N> as /dev/davinci<N>, the name
// the NPU runtime opens (ascend-docker-runtime process.go, facts F-46).
std::string path_inside_container(const std::string& host_path) {
  constexpr std::string_view kVnpu = "/dev/vdavinci";
  if (!host_path.starts_with(kVnpu)) return host_path;
  return "/dev/davinci" + host_path.substr(kVnpu.size());
}

}  // namespace

PartitionNodes partition_nodes(const HostRoot& host, const Vendor& vendor, const Partition& p) {
  PartitionNodes out;
  auto prefix = host_path_prefix(host);
  for (const auto& path : p.device_nodes) {
    if (!drm_rule_allows(vendor, path)) continue;
    NodeEdit node{path_inside_container(path), prefix + path, {}, {}, {}};
    if (const auto* n = number_of(p, path)) {
      node.type = 'c';
      node.major = n->major;
      node.minor = n->minor;
    } else if (!host.exists(path)) {
      out.missing.push_back(path);
      continue;
    }
    out.edits.add_node(std::move(node));
  }
  return out;
}

}  // namespace anygpu
