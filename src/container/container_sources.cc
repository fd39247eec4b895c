// The edit sources fed by the registry: each device's own nodes (probed nodes, the vendor's
// per-device patterns, the DRM nodes its `container.drm` rule allows), the vendor's shared
// nodes less the withheld ones, the `container:` section's mounts, environment and groups, and
// (driver_source.cc) the host driver's user space its `driver_files` name.
#include <algorithm>

#include "container/container_edits.h"
#include "container/driver_source.h"
#include "host/paths.h"
#include "host/etc_group.h"
#include "util/strings.h"

namespace anygpu {

namespace {

bool contains(Strings list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool is_drm(std::string_view path) {
  return path.starts_with(paths::kDevDri) && path.size() > paths::kDevDri.size() &&
         path[paths::kDevDri.size()] == '/';
}

// Candidate host paths (as the host names them) of one device's own nodes.
std::vector<std::string> device_candidates(const Device& d, const Vendor& v) {
  std::vector<std::string> out;
  auto add = [&](std::string p) {
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
  };
  for (const auto& n : d.device_nodes)
    if (!is_drm(n)) add(n);
  for (auto pattern : v.per_device_nodes) {
    // {minor} needs the device's own minor; {index} is the PCI-order index.
    if (pattern.find("{minor}") != std::string_view::npos && !d.minor) continue;
    auto p = replace_placeholder(pattern, "index", std::to_string(d.index));
    if (d.minor) p = replace_placeholder(p, "minor", std::to_string(*d.minor));
    add(std::move(p));
  }
  if (contains(v.container.drm, "card") && d.card_node) add(*d.card_node);
  if (contains(v.container.drm, "render") && d.render_node) add(*d.render_node);
  return out;
}

class RegistryNodes final : public EditSource {
 public:
  std::string_view name() const override { return "registry device nodes"; }

  void add(const EditRequest& r, SelectionEdits& out) const override {
    auto prefix = host_path_prefix(r.host);
    const auto& withhold = r.vendor.container.withhold;
    for (auto& de : out.devices)
      for (auto& p : device_candidates(*de.device, r.vendor))
        if (!contains(withhold, p) && r.host.exists(p))
          de.edits.add_node({p, prefix + p, {}, {}, {}});
    for (auto shared : r.vendor.shared_nodes) {
      std::string p(shared);
      if (contains(withhold, p)) {
        if (r.host.exists(p))
          out.notes.push_back(cat({p, " withheld: a compute container does not need it"}));
        continue;
      }
      if (r.host.exists(p))
        out.common.add_node({p, prefix + p, {}, {}, {}});
      else
        out.notes.push_back(cat({"shared node ", p, " is absent on this host: not passed"}));
    }
  }
};

class RegistryContainerSection final : public EditSource {
 public:
  std::string_view name() const override { return "registry container section"; }

  void add(const EditRequest& r, SelectionEdits& out) const override {
    const auto& c = r.vendor.container;
    auto prefix = host_path_prefix(r.host);
    for (const auto& m : c.mounts) {
      std::string p(m.path);
      if (!r.host.exists(p)) {
        out.notes.push_back(cat({"driver path ", p, " is absent on this host: not mounted"}));
        continue;
      }
      out.common.add_mount({prefix + p, p, {m.options.begin(), m.options.end()}});
    }
    for (const auto& e : c.env) out.common.add_env(e.name, e.value);
    if (!c.groups.empty()) groups(r, c.groups, out);
  }

 private:
  // The host's numbers: the image's /etc/group may differ.
  static void groups(const EditRequest& r, Strings names, SelectionEdits& out) {
    std::vector<std::string> wanted(names.begin(), names.end());
    auto text = r.host.read_file(paths::kLaunchGroupFile);
    if (!text) {
      out.notes.push_back(
          cat({"warning: ", r.host.outside(paths::kLaunchGroupFile), " unreadable: no groups"}));
      return;
    }
    auto ids = parse_group_ids(*text, r.host.outside(paths::kLaunchGroupFile), wanted);
    if (!ids) {
      out.notes.push_back(cat({"warning: ", ids.error().message, "; no groups"}));
      return;
    }
    for (const auto& g : wanted) {
      auto it = ids->find(g);
      if (it == ids->end())
        out.notes.push_back(cat({"group ", g, " is not in the host's /etc/group: not added"}));
      else
        out.common.add_gid(static_cast<uint32_t>(it->second));
    }
  }
};

}  // namespace

namespace {
struct Defaults {
  RegistryNodes nodes;
  RegistryContainerSection section;
  DriverFilesSource driver;
};
const Defaults& defaults() {
  static const Defaults d;
  return d;
}
}  // namespace

std::span<const EditSource* const> default_edit_sources() {
  const auto& d = defaults();
  static const EditSource* const sources[] = {&d.nodes, &d.section, &d.driver};
  return sources;
}

std::vector<const EditSource*> edit_sources_with_driver(const EditSource& driver) {
  const auto& d = defaults();
  return {&d.nodes, &d.section, &driver};
}

}  // namespace anygpu
