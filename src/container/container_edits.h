// What a container needs to use a set of selected devices: the one seam every container path
// reads. CDI generation (src/cdi/), `run --container` for Podman and Docker (src/launch/),
// doctor's stale-spec check and the CDI trust check all take their device nodes, mounts,
// environment, hooks and groups from container_edits(), never from a table of their own.
//
// Interface (stable):
//   container_edits(host, vendor, devices)  ->  SelectionEdits
//     .devices[i].edits   what device i alone needs (its own nodes), in the order given
//     .common             what every container of the vendor needs (shared nodes, driver
//                         mounts, environment, hooks, supplementary groups)
//     .notes              what was left out and why (absent nodes, withheld nodes, …)
//   Each part is built by an ordered list of EditSources (default_edit_sources()); a source
//   reads the host only through the HostRoot it is given and appends to SelectionEdits with
//   the add_* members, which drop duplicates. To hand containers something new (e.g. the
//   host driver's user-space libraries as mounts, a createContainer hook that updates the
//   container's ld cache, /dev/char links), write one EditSource and list it in
//   default_edit_sources() (container_sources.cc); every consumer then carries it.
//
// Paths: `path` / `container_path` is what the container sees; `host_path` is where the file
// is on this machine (beneath --root on a simulated host), ready for an engine's argv or a CDI
// spec's hostPath.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

struct NodeEdit {
  std::string path;       // in the container
  std::string host_path;  // on this machine
  // Where known (a real character device): CDI's type/major/minor. Absent on fixture trees.
  std::optional<char> type;
  std::optional<uint32_t> major, minor;

  bool operator==(const NodeEdit& o) const { return path == o.path && host_path == o.host_path; }
};

struct MountEdit {
  std::string host_path;
  std::string container_path;
  std::vector<std::string> options;  // ro, nosuid, nodev, noexec (CDI adds "bind")

  bool read_only() const;
  bool operator==(const MountEdit& o) const {
    return host_path == o.host_path && container_path == o.container_path;
  }
};

// An OCI hook a CDI spec carries (engines' command lines cannot express one).
struct HookEdit {
  std::string hook_name;          // createContainer, startContainer, … (OCI hook points)
  std::string path;               // host path of the executable
  std::vector<std::string> args;  // argv, args[0] included (OCI)
  std::vector<std::string> env;   // NAME=VALUE

  bool operator==(const HookEdit& o) const {
    return hook_name == o.hook_name && path == o.path && args == o.args;
  }
};

struct ContainerEdits {
  std::vector<NodeEdit> device_nodes;
  std::vector<MountEdit> mounts;
  std::vector<std::string> env;  // NAME=VALUE; a later value for a NAME replaces the earlier
  std::vector<HookEdit> hooks;
  std::vector<uint32_t> additional_gids;
  // Container folders of mounted driver libraries the container's loader must search: a CDI
  // spec's update-ldcache hook lists them in the container's ld.so.cache; an engine's command
  // line (which cannot run a hook) puts them in LD_LIBRARY_PATH instead.
  std::vector<std::string> library_folders;

  void add_node(NodeEdit node);
  void add_mount(MountEdit mount);
  void add_env(std::string_view name, std::string_view value);
  void add_hook(HookEdit hook);
  void add_gid(uint32_t gid);
  void add_library_folder(std::string folder);
  // Appends `other`, dropping what is already here.
  void merge(const ContainerEdits& other);
  bool empty() const;
};

struct DeviceEdits {
  const Device* device = nullptr;  // points into the caller's device list
  ContainerEdits edits;
};

struct SelectionEdits {
  std::string vendor;
  std::vector<DeviceEdits> devices;
  ContainerEdits common;
  std::vector<std::string> notes;

  // Everything the container gets: every device's edits, then the common ones.
  ContainerEdits merged() const;
};

// The inputs every source sees.
struct EditRequest {
  const HostRoot& host;
  const Vendor& vendor;
  const Registry& registry;
};

class EditSource {
 public:
  virtual ~EditSource() = default;
  virtual std::string_view name() const = 0;
  // Appends this source's edits to `out` (whose devices are already listed).
  virtual void add(const EditRequest& request, SelectionEdits& out) const = 0;
};

// The sources applied, in order: the registry's device nodes, its container section, then the
// host driver's user space (container.driver_files, resolved beneath "/":
// container/driver_source.h).
std::span<const EditSource* const> default_edit_sources();

// default_edit_sources() with `driver` in place of the default driver-files source (another
// driver root, another hook binary). The caller keeps `driver` alive as long as the list.
std::vector<const EditSource*> edit_sources_with_driver(const EditSource& driver);

// The edits for `devices` (all of `vendor`; the order is kept). An unknown vendor or a device
// of another vendor is bad_input.
Result<SelectionEdits> container_edits(
    const HostRoot& host, std::string_view vendor, const std::vector<const Device*>& devices,
    const Registry& registry = Registry::builtin(),
    std::span<const EditSource* const> sources = default_edit_sources());
Result<SelectionEdits> container_edits(
    const HostRoot& host, std::string_view vendor, const std::vector<Device>& devices,
    const Registry& registry = Registry::builtin(),
    std::span<const EditSource* const> sources = default_edit_sources());

// "<root>" for a simulated host (no trailing slash), "" at the real root: host paths in edits
// are this prefix plus the host's own path.
std::string host_path_prefix(const HostRoot& host);

}  // namespace anygpu
