// Generating a CDI spec for one vendor's discovered devices. The content is the least a
// container needs to use the devices: each device's own nodes, the vendor's shared control
// nodes, the driver files a vendor's runtime mounts (Ascend), nothing else; cdiVersion is the
// minimum that content needs, so older runtimes accept it.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "cdi/cdi.h"
#include "cdi/cdi_names.h"
#include "cdi/cdi_version.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// Driver files a vendor's own container runtime bind-mounts read-only beside the nodes.
// The registry has no field for these yet, so they live here with their source.
struct VendorMounts {
  std::string_view vendor;
  std::initializer_list<std::string_view> paths;
};
// Ascend: ascend-docker-runtime's default mount list
// (https://github.com/Ascend/ascend-docker-runtime, install/deb/src/base.list).
const VendorMounts kVendorMounts[] = {
    {"ascend",
     {"/usr/local/Ascend/driver/lib64", "/usr/local/Ascend/driver/include",
      "/usr/local/Ascend/driver/version.info", "/usr/local/dcmi", "/usr/local/bin/npu-smi",
      "/etc/ascend_install.info"}},
};

// Environment a vendor's legacy runtime hook reads: "void" tells nvidia-container-runtime not
// to add devices of its own on top of the CDI ones (what `nvidia-ctk cdi generate` writes).
struct VendorEnv {
  std::string_view vendor;
  std::string_view entry;
};
const VendorEnv kVendorEnv[] = {{"nvidia", "NVIDIA_VISIBLE_DEVICES=void"}};

struct Node {
  std::string path;  // in the container (= on the host)
  std::string host;  // with the simulated host's prefix
};

struct GenDevice {
  std::vector<std::string> names;
  std::vector<Node> nodes;
};

void emit_nodes(YAML::Emitter& out, const std::vector<Node>& nodes) {
  out << YAML::Key << "deviceNodes" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : nodes) {
    out << YAML::BeginMap << YAML::Key << "path" << YAML::Value << n.path;
    if (n.host != n.path) out << YAML::Key << "hostPath" << YAML::Value << n.host;
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

Result<std::string> generate_cdi_spec(const Inventory& inventory, const std::string& vendor_id,
                                      const CdiGenerateOptions& options, const Registry& registry) {
  const auto* vendor = registry.vendor(vendor_id);
  if (!vendor) return bad_input(cat({"unknown vendor '", vendor_id, "'"}));
  auto kind = cdi_kind_for(*vendor);
  if (auto why = kind_error(kind)) return internal_error(*why);
  auto host_of = [&](const std::string& p) { return options.host_prefix + p; };
  auto present = [&](const std::string& p) { return !options.exists || options.exists(p); };

  CdiFeatures features;
  std::vector<GenDevice> devices;
  std::vector<Node> all_nodes;
  for (const auto* d : inventory.of_vendor(vendor_id)) {
    GenDevice g;
    std::vector<std::string> paths = d->device_nodes;
    for (const auto& extra : {d->card_node, d->render_node})
      if (extra && std::find(paths.begin(), paths.end(), *extra) == paths.end())
        paths.push_back(*extra);
    for (const auto& p : paths)
      if (present(p)) g.nodes.push_back({p, host_of(p)});
    if (g.nodes.empty()) continue;  // driver not bound: nothing a container could open
    g.names.push_back(std::to_string(d->index));
    g.names.push_back(d->pci.address.str());
    if (d->uuid && !device_name_error(*d->uuid)) g.names.push_back(*d->uuid);
    for (const auto& n : g.nodes) all_nodes.push_back(n);
    devices.push_back(std::move(g));
  }
  if (devices.empty())
    return host_error(cat({"no ", vendor_id, " device with a device node on this host"}));

  std::vector<Node> common;
  for (auto p : vendor->shared_nodes)
    if (present(std::string(p))) common.push_back({std::string(p), host_of(std::string(p))});
  std::vector<std::string> mounts, env;
  for (const auto& m : kVendorMounts)
    if (m.vendor == vendor_id)
      for (auto p : m.paths)
        if (present(std::string(p))) mounts.emplace_back(p);
  for (const auto& e : kVendorEnv)
    if (e.vendor == vendor_id) env.emplace_back(e.entry);

  features.name_starts_nonletter = true;  // "0", "0000:18:00.0"
  features.host_path = !options.host_prefix.empty();
  features.mount_type = !mounts.empty();
  auto version = minimum_cdi_version(features);

  YAML::Emitter out;
  out << YAML::Comment(cat({"CDI spec for ", std::to_string(devices.size()), " ", vendor_id,
                            " device(s), written by anygpu cdi generate. Names: index, PCI bus "
                            "id, uuid, all."}))
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
      emit_nodes(out, g.nodes);
      out << YAML::EndMap << YAML::EndMap;
    }
  out << YAML::BeginMap;
  emit_name(out, "all");
  out << YAML::Key << "containerEdits" << YAML::Value << YAML::BeginMap;
  emit_nodes(out, all_nodes);
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::EndSeq;
  if (!common.empty() || !mounts.empty() || !env.empty()) {
    out << YAML::Key << "containerEdits" << YAML::Value << YAML::BeginMap;
    if (!env.empty()) out << YAML::Key << "env" << YAML::Value << env;
    if (!common.empty()) emit_nodes(out, common);
    if (!mounts.empty()) {
      out << YAML::Key << "mounts" << YAML::Value << YAML::BeginSeq;
      for (const auto& m : mounts)
        out << YAML::BeginMap << YAML::Key << "hostPath" << YAML::Value << host_of(m) << YAML::Key
            << "containerPath" << YAML::Value << m << YAML::Key << "type" << YAML::Value << "bind"
            << YAML::Key << "options" << YAML::Value << YAML::Flow
            << std::vector<std::string>{"ro", "nosuid", "nodev", "bind"} << YAML::EndMap;
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!out.good()) return internal_error(cat({"CDI spec emitter: ", out.GetLastError()}));
  return std::string(out.c_str()) + "\n";
}

}  // namespace anygpu
