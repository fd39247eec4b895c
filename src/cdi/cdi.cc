// Reading the host's CDI specs and finding the CDI names of discovered devices.
#include "cdi/cdi.h"

#include <algorithm>
#include <cerrno>
#include <set>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr size_t kMaxSpecBytes = size_t{4} << 20;
constexpr int kMaxDepth = 4;  // runtimes walk the directories; nobody nests deeper
constexpr size_t kMaxFiles = 4096;

bool is_spec_file(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  return ends(".json") || ends(".yaml");
}

void collect(const HostRoot& host, const std::string& dir, int depth,
             std::vector<std::string>& files, std::vector<Error>& errors) {
  auto entries = host.list_dir(dir);
  if (!entries) {
    if (entries.error().sys_errno != ENOENT && entries.error().sys_errno != ENOTDIR)
      errors.push_back(entries.error());
    return;
  }
  for (const auto& e : *entries) {
    auto path = dir + "/" + e;
    if (host.is_dir(path)) {
      if (depth < kMaxDepth) collect(host, path, depth + 1, files, errors);
    } else if (is_spec_file(e) && files.size() < kMaxFiles) {
      files.push_back(path);
    }
  }
}

// "<root>/dev/x" -> "/dev/x" when the host is beneath a root.
void to_host_view(const HostRoot& host, CdiSpec& spec) {
  if (host.is_real_root()) return;
  auto root = host.outside("/");
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  for (auto& d : spec.devices)
    for (auto& p : d.host_paths)
      if (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/')
        p = p.substr(root.size());
}

}  // namespace

CdiScan scan_cdi_specs(const HostRoot& host) {
  CdiScan scan;
  int priority = 0;
  for (auto dir : kCdiSpecDirs) {
    std::vector<std::string> files;
    collect(host, std::string(dir), 0, files, scan.errors);
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto text = host.read_file(f, kMaxSpecBytes);
      if (!text) {
        scan.errors.push_back(bad_input(cat({host.outside(f), ": ", text.error().message})));
        continue;
      }
      auto spec = parse_cdi_spec(*text, host.outside(f));
      if (!spec) {
        scan.errors.push_back(spec.error());
        continue;
      }
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

std::optional<std::vector<std::string>> cdi_names_for(const std::vector<CdiSpec>& specs,
                                                      const std::vector<Device>& devices,
                                                      const Registry& registry) {
  if (devices.empty()) return std::nullopt;
  // Every node that belongs to some device: a CDI device holding one of another device's
  // nodes would hand the container more than was selected.
  auto own = [](const Device& d) {
    std::set<std::string> nodes(d.device_nodes.begin(), d.device_nodes.end());
    if (d.render_node) nodes.insert(*d.render_node);
    if (d.card_node) nodes.insert(*d.card_node);
    return nodes;
  };
  auto matches = [&](const CdiDevice& c, const Device& d) {
    if (c.host_paths.empty()) return false;
    auto mine = own(d);
    std::set<std::string> theirs(c.host_paths.begin(), c.host_paths.end());
    for (const auto& n : d.device_nodes)
      if (!theirs.count(n)) return false;  // the device's primary nodes are all there
    return std::all_of(theirs.begin(), theirs.end(),
                       [&](const std::string& n) { return mine.count(n) > 0; });
  };
  // Higher priority first (/var/run/cdi over /etc/cdi), the vendor's own kind before others.
  std::vector<const CdiSpec*> order;
  for (const auto& s : specs) order.push_back(&s);
  const auto* vendor = registry.vendor(devices.front().vendor);
  auto rank = [&](const CdiSpec* s) {
    bool own_kind = vendor && s->kind == vendor->cdi_kind;
    return std::pair{-s->priority, own_kind ? 0 : 1};
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const CdiSpec* a, const CdiSpec* b) { return rank(a) < rank(b); });
  for (const auto* spec : order) {
    std::vector<std::string> names;
    for (const auto& d : devices) {
      auto it = std::find_if(spec->devices.begin(), spec->devices.end(),
                             [&](const CdiDevice& c) { return matches(c, d); });
      if (it == spec->devices.end()) break;
      names.push_back(spec->kind + "=" + it->name);
    }
    if (names.size() == devices.size()) return names;
  }
  return std::nullopt;
}

}  // namespace anygpu
