// Reading the host's CDI specs and finding the CDI names of discovered devices.
#include "cdi/cdi.h"

#include <algorithm>
#include <cerrno>
#include <set>

#include "cdi/cdi_resolve.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr size_t kMaxSpecBytes = size_t{4} << 20;
constexpr size_t kMaxFiles = 4096;

bool is_spec_file(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  return ends(".json") || ends(".yaml");
}

// The spec files of one directory, as runtimes read them: its own entries only (the reference
// library's scanSpecDirs never descends into a subdirectory, so a spec there names nothing).
void collect(const HostRoot& host, const std::string& dir, std::vector<std::string>& files,
             std::vector<Error>& errors) {
  auto entries = host.list_dir(dir);
  if (!entries) {
    if (entries.error().sys_errno != ENOENT && entries.error().sys_errno != ENOTDIR)
      errors.push_back(entries.error());
    return;
  }
  for (const auto& e : *entries) {
    auto path = dir + "/" + e;
    if (is_spec_file(e) && !host.is_dir(path) && files.size() < kMaxFiles) files.push_back(path);
  }
}

// "<root>/dev/x" -> "/dev/x" when the host is beneath a root.
void to_host_view(const HostRoot& host, CdiSpec& spec) {
  if (host.is_real_root()) return;
  auto root = host.outside("/");
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  auto strip = [&](std::string& p) {
    if (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/')
      p = p.substr(root.size());
  };
  auto strip_edits = [&](ContainerEdits& e) {
    for (auto& n : e.device_nodes) strip(n.host_path);
    for (auto& m : e.mounts) strip(m.host_path);
  };
  for (auto& d : spec.devices) {
    for (auto& p : d.host_paths) strip(p);
    strip_edits(d.edits);
  }
  strip_edits(spec.common_edits);
}

struct SpecText {
  std::string text;
  std::string untrusted;  // who besides root can change it (util/file_trust.h), or ""
};

Result<SpecText> read_spec(const HostRoot& host, const std::string& f) {
  auto file = host.open_checked(f, "CDI spec");
  if (!file) return file.error();
  auto text = read_open_file(file->fd.get(), host.outside(f), kMaxSpecBytes + 1);
  if (!text) return text.error();
  if (text->size() > kMaxSpecBytes)
    return bad_input(
        cat({host.outside(f), ": larger than ", std::to_string(kMaxSpecBytes), " bytes"}));
  return SpecText{std::move(*text), std::move(file->untrusted)};
}

}  // namespace

CdiScan scan_cdi_specs(const HostRoot& host) {
  CdiScan scan;
  int priority = 0;
  for (auto dir : kCdiSpecDirs) {
    std::vector<std::string> files;
    collect(host, std::string(dir), files, scan.errors);
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto text = read_spec(host, f);
      if (!text) {
        scan.errors.push_back(text.error());
        continue;
      }
      auto spec = parse_cdi_spec(text->text, host.outside(f));
      if (!spec) {
        scan.errors.push_back(spec.error());
        continue;
      }
      // Listed and warned about, never chosen for a container (choose_cdi_names): the runtime
      // applies its nodes and hooks as root, and whoever can change the file changes those.
      if (!text->untrusted.empty())
        spec->risks.push_back(cat({"others can change it (", text->untrusted, ")"}));
      spec->file = f;
      spec->priority = priority;
      to_host_view(host, *spec);
      scan.specs.push_back(std::move(*spec));
    }
    ++priority;
  }
  return scan;
}

Result<std::vector<CdiSpec>> read_cdi_specs(const HostRoot& host) {
  auto scan = scan_cdi_specs(host);
  if (!scan.errors.empty()) return scan.errors.front();
  return std::move(scan.specs);
}

namespace {

// The nodes that belong to one device as the host names them: probed nodes, DRM nodes, and the
// vendor's per-device patterns — whatever a container rule would pass, a spec may too.
std::set<std::string> own_nodes(const DeviceEdits& de) {
  const auto& d = *de.device;
  std::set<std::string> nodes(d.device_nodes.begin(), d.device_nodes.end());
  if (d.render_node) nodes.insert(*d.render_node);
  if (d.card_node) nodes.insert(*d.card_node);
  for (const auto& n : de.edits.device_nodes) nodes.insert(n.path);
  return nodes;
}

std::set<std::string> host_paths(const ContainerEdits& e) {
  std::set<std::string> out;
  for (const auto& n : e.device_nodes) out.insert(n.host_path);
  return out;
}

// A spec device stands for a selected device when every node it grants is the device's own and
// it grants each node the container needs for that device.
bool stands_for(const CdiDevice& c, const DeviceEdits& de, const std::set<std::string>& own) {
  auto theirs = host_paths(c.edits);
  if (theirs.empty()) return false;
  for (const auto& n : de.edits.device_nodes)
    if (!theirs.count(n.path)) return false;
  return std::all_of(theirs.begin(), theirs.end(),
                     [&](const std::string& n) { return own.count(n) > 0; });
}

}  // namespace

namespace {

// The first device entry of `spec` that stands for the selected device and whose name a
// runtime resolves to `spec`; else the first that stands for it, with why its names are not
// usable; null when none stands for it.
struct Pick {
  const CdiDevice* device = nullptr;
  std::string unusable;  // why the runtime would not give device->name from this spec
};
Pick pick_device(const CdiSpec& spec, const DeviceEdits& de, const std::set<std::string>& own,
                 const CdiNameTable& table) {
  Pick fallback;
  for (const auto& c : spec.devices) {
    if (!stands_for(c, de, own)) continue;
    auto why = table.why_not(spec, c.name);
    if (why.empty()) return {&c, {}};
    if (!fallback.device) fallback = {&c, why};
  }
  return fallback;
}

}  // namespace

std::string cdi_spec_path(std::string_view vendor) {
  return cat({kCdiSpecDirs[0], "/anygpu-", vendor, ".yaml"});
}

std::string cdi_generate_command(std::string_view vendor, std::string_view file) {
  return cat({"anygpu cdi generate --vendor ", vendor, " --output ", file});
}

CdiChoice choose_cdi_names(const std::vector<CdiSpec>& specs, const SelectionEdits& edits,
                           const Registry& registry, const CdiDefectsOf& defects) {
  CdiChoice choice;
  if (edits.devices.empty()) return choice;
  const auto* vendor = registry.vendor(edits.vendor);
  std::set<std::string> allowed;  // every selected device's own nodes and the shared nodes
  std::vector<std::set<std::string>> own;
  for (const auto& de : edits.devices) {
    own.push_back(own_nodes(de));
    allowed.insert(own.back().begin(), own.back().end());
  }
  if (vendor)
    for (auto n : vendor->shared_nodes) allowed.emplace(n);
  auto needed_common = edits.common;
  CdiNameTable table(specs);

  // Higher priority first (/var/run/cdi over /etc/cdi), the vendor's own kind before others.
  std::vector<const CdiSpec*> order;
  for (const auto& s : specs) order.push_back(&s);
  auto rank = [&](const CdiSpec* s) {
    bool own_kind = vendor && s->kind == vendor->cdi_kind;
    return std::pair{-s->priority, own_kind ? 0 : 1};
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const CdiSpec* a, const CdiSpec* b) { return rank(a) < rank(b); });
  for (const auto* spec : order) {
    std::vector<const CdiDevice*> chosen;
    std::vector<std::string> unusable;  // names a runtime would not resolve to this spec
    for (size_t i = 0; i < edits.devices.size(); ++i) {
      auto pick = pick_device(*spec, edits.devices[i], own[i], table);
      if (!pick.device) break;
      chosen.push_back(pick.device);
      if (!pick.unusable.empty()) unusable.push_back(pick.unusable);
    }
    if (chosen.size() != edits.devices.size()) continue;
    // The whole spec: top-level edits apply to every device asked for.
    std::vector<std::string> beyond;
    for (const auto& n : spec->common_edits.device_nodes)  // in the spec's order
      if (!allowed.count(n.host_path)) beyond.push_back(n.host_path);
    std::vector<std::string> why = spec->risks;
    if (!beyond.empty())
      why.push_back(cat({"its top-level containerEdits add ", join(beyond, ", ")}));
    // The shared nodes the container needs must come from the spec too.
    auto granted = host_paths(spec->common_edits);
    for (const auto* c : chosen)
      for (const auto& n : host_paths(c->edits)) granted.insert(n);
    std::vector<std::string> lacking;
    for (const auto& n : needed_common.device_nodes)
      if (!granted.count(n.path)) lacking.push_back(n.path);
    if (!lacking.empty()) why.push_back(cat({"it lacks ", join(lacking, ", ")}));
    // A spec that mounts nothing where the host's driver files must be mounted was made
    // without them; one that mounts the driver its own way (nvidia-ctk's) is taken as it is.
    bool spec_mounts = !spec->common_edits.mounts.empty();
    for (const auto* c : chosen) spec_mounts = spec_mounts || !c->edits.mounts.empty();
    if (!needed_common.mounts.empty() && !spec_mounts)
      why.push_back(cat({"it mounts none of the host driver's files (",
                         std::to_string(needed_common.mounts.size()), " needed)"}));
    // What doctor reports as broken on this host, and names the runtime takes elsewhere.
    if (defects)
      for (auto& d : defects(*spec)) why.push_back(std::move(d));
    why.insert(why.end(), unusable.begin(), unusable.end());
    if (!why.empty()) {
      choice.warnings.push_back(cat({"CDI spec ", spec->file, " covers the selected devices but ",
                                     join(why, "; "), ": passing device nodes explicitly"}));
      continue;
    }
    std::vector<std::string> names;
    for (const auto* c : chosen) names.push_back(spec->kind + "=" + c->name);
    choice.names = std::move(names);
    return choice;
  }
  return choice;
}

std::vector<std::string> cdi_spec_warnings(const CdiSpec& spec, const Registry& registry) {
  std::vector<std::string> out = spec.risks;
  const Vendor* vendor = nullptr;
  for (const auto& v : registry.vendors())
    if (v.cdi_kind == spec.kind) vendor = &v;
  if (!vendor) return out;
  std::vector<std::string> extra;
  for (const auto& n : spec.common_edits.device_nodes)
    if (std::find(vendor->shared_nodes.begin(), vendor->shared_nodes.end(), n.host_path) ==
        vendor->shared_nodes.end())
      extra.push_back(n.host_path);
  if (!extra.empty())
    out.push_back(cat({"top-level containerEdits give every ", spec.kind, " device ",
                       join(extra, ", "), " (not a shared node of ", vendor->id, ")"}));
  return out;
}

}  // namespace anygpu
