#include "cdi/cdi_defects.h"

#include <algorithm>

#include "container/driver_files.h"
#include "container/driver_version.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string base_name(std::string_view p) {
  auto slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

// A path the spec names, as a path beneath the root: a spec read by scan_cdi_specs() names host
// files as the host does, one generated for a simulated host may still carry the root.
bool present(const HostRoot& host, const std::string& path) {
  if (host.exists(path)) return true;
  const auto& root = host.options().root;
  if (!host.is_real_root() && path.compare(0, root.size(), root) == 0)
    return host.exists(path.substr(root.size()));
  return false;
}

std::string counted(size_t n, std::string_view one, std::string_view many) {
  return cat({std::to_string(n), " ", n == 1 ? one : many});
}

}  // namespace

const Vendor* vendor_of_cdi_kind(std::string_view kind, const Registry& registry) {
  for (const auto& v : registry.vendors())
    if (!kind.empty() && v.cdi_kind == kind) return &v;
  return nullptr;
}

std::vector<std::string> CdiSpecDefects::reasons() const {
  std::vector<std::string> out;
  if (!gone_nodes.empty())
    out.push_back(cat({"it names ",
                       counted(gone_nodes.size(), "device node that does not exist",
                               "device nodes that do not exist"),
                       " (", join(gone_nodes, ", "), ")"}));
  if (!gone_mounts.empty())
    out.push_back(cat({"it mounts ",
                       counted(gone_mounts.size(), "host file that no longer exists",
                               "host files that no longer exist"),
                       " (", join(gone_mounts, ", "), ")"}));
  if (!stale_driver_versions.empty())
    out.push_back(cat({"it mounts driver ",
                       join({stale_driver_versions.begin(), stale_driver_versions.end()}, ", "),
                       " libraries while the loaded module is ", loaded_driver.value_or("?")}));
  return out;
}

LoadedDriver loaded_driver_of(const std::vector<const Device*>& devices) {
  std::map<std::string, std::string, std::less<>> by_vendor;
  for (const auto* d : devices)
    if (d->driver && d->driver->version) by_vendor.try_emplace(d->vendor, *d->driver->version);
  return [by_vendor](std::string_view vendor) -> std::optional<std::string> {
    auto it = by_vendor.find(vendor);
    if (it == by_vendor.end()) return std::nullopt;
    return it->second;
  };
}

LoadedDriver loaded_driver_of(const std::vector<Device>& devices) {
  std::vector<const Device*> pointers;
  for (const auto& d : devices) pointers.push_back(&d);
  return loaded_driver_of(pointers);
}

CdiSpecJudge::CdiSpecJudge(const HostRoot& host, LoadedDriver loaded, const Registry& registry)
    : host_(host), loaded_(std::move(loaded)), registry_(registry) {}

CdiSpecDefects CdiSpecJudge::defects(const CdiSpec& spec) {
  CdiSpecDefects out;
  auto nodes = [&](const std::string& who, const std::vector<std::string>& paths) {
    for (const auto& n : paths)
      if (!present(host_, n)) out.gone_nodes.push_back(cat({who, ": ", n}));
  };
  auto mounts = [&](const ContainerEdits& edits) {
    for (const auto& m : edits.mounts)
      if (!present(host_, m.host_path)) out.gone_mounts.push_back(m.host_path);
  };
  nodes("containerEdits", spec.common_device_paths);
  mounts(spec.common_edits);
  for (const auto& d : spec.devices) {
    nodes(cat({spec.kind, "=", d.name}), d.host_paths.empty() ? d.device_paths : d.host_paths);
    mounts(d.edits);
  }
  const auto* owner = vendor_of_cdi_kind(spec.kind, registry_);
  out.loaded_driver = owner && loaded_ ? loaded_(owner->id) : std::nullopt;
  if (out.loaded_driver)
    for (const auto& v : mounted_versions(spec, versioned(*owner, *out.loaded_driver)))
      if (v != *out.loaded_driver) out.stale_driver_versions.insert(v);
  return out;
}

// The vendor's libraries whose real file names carry the loaded module's version, as its
// registry `{driver_version}` patterns find them on the host now: "libcuda" with the literal
// around the version (".so.", ""). A spec mounting one of these at another version is stale;
// a library with a version of its own (libnvidia-egl-wayland.so.1.1.13) is not one of them.
const CdiSpecJudge::VersionedLibraries& CdiSpecJudge::versioned(const Vendor& vendor,
                                                                const std::string& loaded) {
  auto [it, fresh] = versioned_.try_emplace(std::string(vendor.id));
  auto& out = it->second;
  if (!fresh) return out;
  out.shapes = driver_version_shapes(vendor);
  if (out.shapes.empty()) return out;
  DriverFilesOptions options;
  options.driver_version = loaded;
  for (const auto& m : resolve_driver_files(host_, vendor, options).mounts) {
    if (m.kind != DriverFileKind::library) continue;
    auto name = base_name(m.host_path);
    for (const auto& s : out.shapes)
      if (auto tail = cat({s.before, loaded, s.after}); name.ends_with(tail))
        out.stems.insert(name.substr(0, name.size() - tail.size()));
  }
  return out;
}

// The driver versions ("535.104.05") of the versioned libraries a spec mounts.
std::set<std::string> CdiSpecJudge::mounted_versions(const CdiSpec& spec,
                                                     const VersionedLibraries& libs) {
  std::set<std::string> out;
  auto scan = [&](const ContainerEdits& edits) {
    for (const auto& m : edits.mounts) {
      auto name = base_name(m.host_path);
      for (const auto& shape : libs.shapes)
        for (const auto& stem : libs.stems)
          if (auto version = driver_version_in(name, stem, shape)) out.insert(*version);
    }
  };
  scan(spec.common_edits);
  for (const auto& d : spec.devices) scan(d.edits);
  return out;
}

}  // namespace anygpu
