#include "render/inventory_json.h"

#include "util/strings.h"

namespace anygpu {

namespace {

using json = nlohmann::ordered_json;

template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

json strings(Strings list) {
  json a = json::array();
  for (auto s : list) a.push_back(std::string(s));
  return a;
}

json named(std::span<const NamedValue> list) {
  json o = json::object();
  for (const auto& nv : list) o[std::string(nv.name)] = std::string(nv.value);
  return o;
}

json partition_json(const Partition& p) {
  json j;
  j["index"] = p.index;
  j["id"] = p.id;
  put(j, "profile", p.profile);
  put(j, "uuid", p.uuid);
  put(j, "ai_cores", p.ai_cores);
  put(j, "memory_total_bytes", p.memory_total_bytes);
  j["device_nodes"] = p.device_nodes;
  put(j, "render_node", p.render_node);
  put(j, "numa_node", p.numa_node);
  return j;
}

// Only a partitioned device carries the keys: every other device's JSON is unchanged.
void put_partitions(json& j, const Device& d) {
  if (!d.partitioning) return;
  json mode{{"mode", d.partitioning->mode}};
  put(mode, "memory_mode", d.partitioning->memory_mode);
  j["partitioning"] = mode;
  j["partitions"] = json::array();
  for (const auto& p : d.partitions) j["partitions"].push_back(partition_json(p));
}

json device_json(const Device& d) {
  json j;
  j["vendor"] = d.vendor;
  j["vendor_name"] = d.vendor_name;
  j["index"] = d.index;
  put(j, "name", d.name);
  json pci;
  pci["bus_id"] = d.pci.address.str();
  pci["vendor_id"] = hex(d.pci.vendor_id, 4);
  pci["device_id"] = hex(d.pci.device_id, 4);
  pci["class"] = hex(d.pci.class_code, 6);
  json link = json::object();
  put(link, "speed_gts", d.pci.link.speed_gts);
  put(link, "width", d.pci.link.width);
  if (!link.empty()) pci["link"] = link;
  if (!d.pci.root_complex.empty()) pci["root_complex"] = d.pci.root_complex;
  j["pci"] = pci;
  put(j, "numa_node", d.numa_node);
  put(j, "cpu_affinity", d.cpu_affinity);
  if (d.driver) {
    json drv;
    drv["name"] = d.driver->name;
    put(drv, "version", d.driver->version);
    j["driver"] = drv;
  }
  put(j, "arch", d.arch);
  put(j, "memory_total_bytes", d.memory_total_bytes);
  put(j, "memory_bandwidth_gbps", d.memory_bandwidth_gbps);
  if (d.integrated) j["integrated"] = true;
  put(j, "uuid", d.uuid);
  j["device_nodes"] = d.device_nodes;
  put(j, "render_node", d.render_node);
  put(j, "card_node", d.card_node);
  j["status"] = std::string(to_string(d.status));
  j["sources"] = d.sources;
  put(j, "physfn", d.physfn);
  if (d.sriov) j["sriov"] = {{"total_vfs", d.sriov->total_vfs}, {"num_vfs", d.sriov->num_vfs}};
  put_partitions(j, d);
  return j;
}

}  // namespace

json inventory_to_json(const Inventory& inv) {
  json j;
  j["schema"] = "anygpu.inventory/v1";
  json host = json::object();
  put(host, "hostname", inv.host.hostname);
  put(host, "kernel", inv.host.kernel);
  put(host, "os", inv.host.os);
  put(host, "arch", inv.host.arch);
  put(host, "cpus", inv.host.cpus);
  put(host, "numa_nodes", inv.host.numa_nodes);
  j["host"] = host;
  j["devices"] = json::array();
  for (const auto& d : inv.devices) j["devices"].push_back(device_json(d));
  j["runtimes"] = json::array();
  for (const auto& r : inv.runtimes)
    j["runtimes"].push_back({{"vendor", r.vendor},
                             {"component", r.component},
                             {"version", r.version},
                             {"source", r.source}});
  j["libraries"] = json::array();
  for (const auto& l : inv.libraries) {
    json lj{{"vendor", l.vendor}, {"api", l.api}, {"status", std::string(to_string(l.status))}};
    put(lj, "path", l.path);
    put(lj, "message", l.message);
    j["libraries"].push_back(lj);
  }
  j["warnings"] = inv.diagnostics.warnings();
  return j;
}

json registry_to_json(const Registry& registry) {
  json j;
  j["schema"] = "anygpu.vendors/v1";
  j["vendors"] = json::array();
  for (const auto& v : registry.vendors()) {
    json vj;
    vj["id"] = std::string(v.id);
    vj["name"] = std::string(v.name);
    json ids = json::array(), classes = json::array();
    for (auto id : v.pci_vendor_ids) ids.push_back(hex(id, 4));
    for (auto c : v.pci_classes) classes.push_back(hex(c, 4));
    vj["pci"] = {{"vendor_ids", ids}, {"classes", classes}};
    vj["drivers"] = strings(v.drivers);
    json versions = json::array();
    for (const auto& s : v.driver_version) {
      json sj{{"path", std::string(s.path)}};
      if (!s.after.empty()) sj["after"] = std::string(s.after);
      if (!s.key.empty()) sj["key"] = std::string(s.key);
      versions.push_back(sj);
    }
    vj["driver_version"] = versions;
    vj["device_nodes"] = {{"per_device", strings(v.per_device_nodes)},
                          {"shared", strings(v.shared_nodes)},
                          {"drm", v.drm_nodes}};
    json libs = json::array();
    for (const auto& l : v.libraries)
      libs.push_back({{"api", std::string(l.api)},
                      {"sonames", strings(l.sonames)},
                      {"dirs", strings(l.dirs)},
                      {"required", l.required}});
    vj["libraries"] = libs;
    json runtimes = json::array();
    for (const auto& r : v.runtimes) {
      json rj{{"component", std::string(r.component)}};
      if (!r.path.empty()) rj["path"] = std::string(r.path);
      if (!r.key.empty()) rj["key"] = std::string(r.key);
      if (!r.library.empty()) rj["library"] = std::string(r.library);
      if (r.derived) rj["derived"] = true;
      runtimes.push_back(rj);
    }
    vj["runtimes"] = runtimes;
    vj["smi"] = strings(v.smi);
    vj["torch"] = {{"device", std::string(v.torch_device)},
                   {"package", std::string(v.torch_package)},
                   {"backend", std::string(v.dist_backend)}};
    json env{{"visible_devices", std::string(v.visible_devices_env)},
             {"extra", named(v.extra_env)}};
    if (!v.container_visible_devices_env.empty())
      env["container_visible_devices"] = std::string(v.container_visible_devices_env);
    vj["env"] = env;
    vj["backend_names"] = strings(v.backend_names);
    vj["cdi_kind"] = std::string(v.cdi_kind);
    vj["k8s_resource"] = std::string(v.k8s_resource);
    vj["sources"] = named(v.sources);
    vj["unverified"] = strings(v.unverified);
    if (const auto& f = v.container.driver_files; !f.empty()) {
      json df = json::object();
      for (const auto& [key, list] : {std::pair{"libraries", f.libraries},
                                      {"library_patterns", f.library_patterns},
                                      {"library_dirs", f.library_dirs},
                                      {"tools", f.tools},
                                      {"tool_dirs", f.tool_dirs},
                                      {"firmware", f.firmware},
                                      {"sockets", f.sockets},
                                      {"config", f.config}})
        if (!list.empty()) df[key] = strings(list);
      df["sources"] = named(f.sources);
      df["unverified"] = strings(f.unverified);
      vj["driver_files"] = df;
    }
    j["vendors"].push_back(vj);
  }
  j["devices"] = json::array();
  for (const auto& d : registry.devices()) {
    json dj{{"vendor", std::string(d.vendor)},
            {"device_id", hex(d.device_id, 4)},
            {"name", std::string(d.name)},
            {"arch", std::string(d.arch)}};
    put(dj, "memory_gib", d.memory_gib);
    put(dj, "memory_bandwidth_gbps", d.memory_bandwidth_gbps);
    if (d.integrated) dj["integrated"] = true;
    dj["source"] = std::string(d.source);
    if (!d.unverified.empty()) dj["unverified"] = strings(d.unverified);
    j["devices"].push_back(dj);
  }
  return j;
}

}  // namespace anygpu
