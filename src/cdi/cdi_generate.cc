// Generating a CDI spec for one vendor's discovered devices. The content is what
// container_edits() says a container needs (each device's own nodes per device; shared nodes,
// driver mounts, environment and hooks at the top level), nothing else; cdiVersion is the
// minimum that content needs, so older runtimes accept it.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "cdi/cdi.h"
#include "cdi/cdi_names.h"
#include "cdi/cdi_version.h"
#include "container/container_edits.h"
#include "container/partition_edits.h"
#include "util/strings.h"

namespace anygpu {

namespace {

struct GenDevice {
  std::vector<std::string> names;
  ContainerEdits edits;
};

void add_name(std::vector<std::string>& names, const std::string& name) {
  if (!device_name_error(name) && std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(name);
}

// A partitioned device is not handed out whole (as nvidia-ctk skips a MIG-enabled parent, facts
// F-17): one device per partition, named "<device index>:<partition index>" and by its uuid
// or id where that is a valid CDI name, with only its own nodes.
void add_partitions(const HostRoot& host, const Vendor& vendor, const Device& d,
                    const CdiGenerateOptions& options, std::vector<GenDevice>& out) {
  for (const auto& p : d.partitions) {
    auto nodes = partition_nodes(host, vendor, p);
    if (!nodes.missing.empty()) {
      if (options.diagnostics)
        options.diagnostics->warn(cat({"partition ", p.id, ": ", join(nodes.missing, ", "),
                                       " absent on this host and their numbers unknown: not in "
                                       "the spec"}));
      continue;
    }
    GenDevice g{{cat({std::to_string(d.index), ":", std::to_string(p.index)})},
                std::move(nodes.edits)};
    if (p.uuid) add_name(g.names, *p.uuid);
    add_name(g.names, p.id);
    out.push_back(std::move(g));
  }
}

void emit_nodes(YAML::Emitter& out, const std::vector<NodeEdit>& nodes, bool host_view) {
  out << YAML::Key << "deviceNodes" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : nodes) {
    out << YAML::BeginMap << YAML::Key << "path" << YAML::Value << n.path;
    // A node the container sees under another name (an Ascend vNPU's /dev/vdavinciN is its
    // /dev/davinciN) names its host file even in a spec for this host's own /etc/cdi.
    auto host_name = n.host_path.substr(n.host_path.rfind('/') + 1);
    bool renamed = host_name != n.path.substr(n.path.rfind('/') + 1);
    if (!host_view && n.host_path != n.path)
      out << YAML::Key << "hostPath" << YAML::Value << n.host_path;
    else if (renamed)
      out << YAML::Key << "hostPath" << YAML::Value
          << n.path.substr(0, n.path.rfind('/') + 1) + host_name;
    if (n.type) out << YAML::Key << "type" << YAML::Value << std::string(1, *n.type);
    if (n.major) out << YAML::Key << "major" << YAML::Value << *n.major;
    if (n.minor) out << YAML::Key << "minor" << YAML::Value << *n.minor;
    // No "m": a container never needs to mknod a GPU node (and runs without CAP_MKNOD).
    out << YAML::Key << "permissions" << YAML::Value << "rw" << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

// Quoted, so "0" stays a string for every YAML reader.
void emit_name(YAML::Emitter& out, const std::string& name) {
  out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << name;
}

}  // namespace

std::string cdi_kind_for(const Vendor& vendor) {
  if (!vendor.cdi_kind.empty()) return std::string(vendor.cdi_kind);
  return cat({"anygpu.dev/", vendor.id});
}

Result<std::string> generate_cdi_spec(const HostRoot& host, const Inventory& inventory,
                                      const std::string& vendor_id,
                                      const CdiGenerateOptions& options, const Registry& registry) {
  const auto* vendor = registry.vendor(vendor_id);
  if (!vendor) return bad_input(cat({"unknown vendor '", vendor_id, "'"}));
  auto kind = cdi_kind_for(*vendor);
  if (auto why = kind_error(kind)) return internal_error(*why);
  DriverFilesSource driver(options.driver);
  auto sources = edit_sources_with_driver(driver);
  auto edits = container_edits(host, vendor_id, inventory.of_vendor(vendor_id), registry, sources);
  if (!edits) return edits.error();
  if (options.diagnostics)
    for (const auto& n : edits->notes)
      if (n.starts_with("warning: ")) options.diagnostics->warn(n.substr(9));

  CdiFeatures features;
  std::vector<GenDevice> devices;
  bool partitions = false;
  for (const auto& de : edits->devices) {
    const auto& d = *de.device;
    if (d.partitioning && !d.partitions.empty()) {
      partitions = true;
      add_partitions(host, *vendor, d, options, devices);
      continue;
    }
    // Driver not bound: nothing a container could open. A PF lending to its virtual functions
    // is not handed out: the VFs are the devices (docs/select.md).
    if (de.edits.device_nodes.empty() || d.lends_to_vfs()) continue;
    GenDevice g{{std::to_string(d.index), d.pci.address.str()}, de.edits};
    if (d.uuid) add_name(g.names, *d.uuid);
    // A vendor that numbers its nodes by physical id (Ascend: ASCEND_VISIBLE_DEVICES=3 is
    // /dev/davinci3, whatever its PCI order) also gets the node's name: "davinci3".
    if (d.minor && vendor->container.physical_names)
      for (auto pattern : vendor->per_device_nodes) {
        if (pattern.find("{minor}") == std::string_view::npos) continue;
        auto node = replace_placeholder(pattern, "minor", std::to_string(*d.minor));
        add_name(g.names, node.substr(node.rfind('/') + 1));
      }
    devices.push_back(std::move(g));
  }
  ContainerEdits all;
  for (const auto& g : devices) all.merge(g.edits);
  if (devices.empty())
    return host_error(cat({"no ", vendor_id, " device with a device node on this host"}));
  bool host_view = options.host_view;
  ContainerEdits common = edits->common;
  // A spec for the root's own /etc/cdi names host files as that host does.
  auto prefix = host_path_prefix(host);
  if (host_view && !prefix.empty())
    for (auto& h : common.hooks)
      if (h.path.starts_with(prefix + "/")) h.path.erase(0, prefix.size());
  // additionalGids stay with the engine's --group-add: they need cdiVersion 0.7.0, newer than
  // what Podman 4 reads.
  common.additional_gids.clear();

  features.name_starts_nonletter = true;  // "0", "0000:18:00.0"
  features.host_path = !host_view && !host_path_prefix(host).empty();
  features.mount_type = !common.mounts.empty();
  auto version = minimum_cdi_version(features);

  YAML::Emitter out;
  out << YAML::Comment(
             cat({"CDI spec for ", std::to_string(devices.size()), " ", vendor_id,
                  " device(s), written by anygpu cdi generate. Names: index, PCI bus "
                  "id, uuid, the node name where the vendor numbers nodes by physical "
                  "id, ",
                  partitions ? "<device index>:<partition index> for a partition, " : "", "all."}))
      << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "cdiVersion" << YAML::Value << YAML::DoubleQuoted << version;
  out << YAML::Key << "kind" << YAML::Value << kind;
  out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
  for (const auto& g : devices)
    for (const auto& name : g.names) {
      out << YAML::BeginMap;
      emit_name(out, name);
      out << YAML::Key << "containerEdits" << YAML::Value << YAML::BeginMap;
      emit_nodes(out, g.edits.device_nodes, host_view);
      out << YAML::EndMap << YAML::EndMap;
    }
  out << YAML::BeginMap;
  emit_name(out, "all");
  out << YAML::Key << "containerEdits" << YAML::Value << YAML::BeginMap;
  emit_nodes(out, all.device_nodes, host_view);
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::EndSeq;
  if (!common.empty()) {
    out << YAML::Key << "containerEdits" << YAML::Value << YAML::BeginMap;
    if (!common.env.empty()) out << YAML::Key << "env" << YAML::Value << common.env;
    if (!common.device_nodes.empty()) emit_nodes(out, common.device_nodes, host_view);
    if (!common.mounts.empty()) {
      out << YAML::Key << "mounts" << YAML::Value << YAML::BeginSeq;
      for (const auto& m : common.mounts) {
        auto opts = m.options;
        opts.push_back("bind");
        // The host's own view drops the root's prefix, not the driver root.
        auto host_path = m.host_path;
        if (host_view && !prefix.empty() && host_path.starts_with(prefix + "/"))
          host_path.erase(0, prefix.size());
        out << YAML::BeginMap << YAML::Key << "hostPath" << YAML::Value << host_path << YAML::Key
            << "containerPath" << YAML::Value << m.container_path << YAML::Key << "type"
            << YAML::Value << "bind" << YAML::Key << "options" << YAML::Value << YAML::Flow << opts
            << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    if (!common.hooks.empty()) {
      out << YAML::Key << "hooks" << YAML::Value << YAML::BeginSeq;
      for (const auto& h : common.hooks) {
        out << YAML::BeginMap << YAML::Key << "hookName" << YAML::Value << h.hook_name << YAML::Key
            << "path" << YAML::Value << h.path;
        if (!h.args.empty()) out << YAML::Key << "args" << YAML::Value << YAML::Flow << h.args;
        if (!h.env.empty()) out << YAML::Key << "env" << YAML::Value << YAML::Flow << h.env;
        out << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!out.good()) return internal_error(cat({"CDI spec emitter: ", out.GetLastError()}));
  return std::string(out.c_str()) + "\n";
}

}  // namespace anygpu
