#include "container/container_edits.h"

#include <algorithm>

#include "util/strings.h"

namespace anygpu {

namespace {

template <class T>
void add_unique(std::vector<T>& items, T item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(std::move(item));
}

std::string_view env_name(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

}  // namespace

bool MountEdit::read_only() const {
  return std::find(options.begin(), options.end(), "ro") != options.end();
}

void ContainerEdits::add_node(NodeEdit node) {
  add_unique(device_nodes, std::move(node));
}
void ContainerEdits::add_mount(MountEdit mount) {
  add_unique(mounts, std::move(mount));
}
void ContainerEdits::add_hook(HookEdit hook) {
  add_unique(hooks, std::move(hook));
}
void ContainerEdits::add_gid(uint32_t gid) {
  add_unique(additional_gids, gid);
}
void ContainerEdits::add_library_folder(std::string folder) {
  add_unique(library_folders, std::move(folder));
}

void ContainerEdits::add_env(std::string_view name, std::string_view value) {
  auto entry = cat({name, "=", value});
  for (auto& e : env)
    if (env_name(e) == name) {
      e = std::move(entry);
      return;
    }
  env.push_back(std::move(entry));
}

void ContainerEdits::merge(const ContainerEdits& other) {
  for (const auto& n : other.device_nodes) add_node(n);
  for (const auto& m : other.mounts) add_mount(m);
  for (const auto& e : other.env)
    add_env(env_name(e), std::string_view(e).substr(env_name(e).size() + 1));
  for (const auto& h : other.hooks) add_hook(h);
  for (auto g : other.additional_gids) add_gid(g);
  for (const auto& f : other.library_folders) add_library_folder(f);
}

bool ContainerEdits::empty() const {
  return device_nodes.empty() && mounts.empty() && env.empty() && hooks.empty() &&
         additional_gids.empty() && library_folders.empty();
}

ContainerEdits SelectionEdits::merged() const {
  ContainerEdits all;
  for (const auto& d : devices) all.merge(d.edits);
  all.merge(common);
  return all;
}

std::string host_path_prefix(const HostRoot& host) {
  if (host.is_real_root()) return {};
  auto prefix = host.outside("/");
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return prefix;
}

Result<SelectionEdits> container_edits(const HostRoot& host, std::string_view vendor,
                                       const std::vector<const Device*>& devices,
                                       const Registry& registry,
                                       std::span<const EditSource* const> sources) {
  const Vendor* v = registry.vendor(vendor);
  if (!v) return bad_input(cat({"unknown vendor '", vendor, "'"}));
  SelectionEdits out;
  out.vendor = std::string(vendor);
  for (const auto* d : devices) {
    if (d->vendor != vendor)
      return bad_input(cat({"device ", d->pci.address.str(), " is ", d->vendor, ", not ", vendor,
                            ": one container gets one vendor's devices"}));
    out.devices.push_back({d, {}});
  }
  EditRequest request{host, *v, registry};
  for (const auto* source : sources) source->add(request, out);
  return out;
}

Result<SelectionEdits> container_edits(const HostRoot& host, std::string_view vendor,
                                       const std::vector<Device>& devices, const Registry& registry,
                                       std::span<const EditSource* const> sources) {
  std::vector<const Device*> pointers;
  for (const auto& d : devices) pointers.push_back(&d);
  return container_edits(host, vendor, pointers, registry, sources);
}

}  // namespace anygpu
