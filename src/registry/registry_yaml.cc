#include "registry/registry_yaml.h"

#include <algorithm>
#include <set>

#include "util/strings.h"
#include "util/yaml_reader.h"

namespace anygpu {

namespace {

constexpr std::string_view kVendorKeys[] = {"id",
                                            "name",
                                            "display_name",
                                            "pci",
                                            "drivers",
                                            "driver_version",
                                            "device_nodes",
                                            "libraries",
                                            "runtimes",
                                            "smi",
                                            "torch",
                                            "env",
                                            "backend_names",
                                            "cdi_kind",
                                            "k8s_resource",
                                            "container",
                                            "access",
                                            "slurm",
                                            "kmsg",
                                            "sources",
                                            "unverified"};
constexpr std::string_view kOptionalVendorKeys[] = {"access", "slurm", "kmsg", "unverified"};
// gres.conf(5) environment flags: the variable each has slurmd set, or none (no_gpu_env).
constexpr std::string_view kGresEnvFlags[] = {"nvidia_gpu_env", "amd_gpu_env", "intel_gpu_env",
                                              "opencl_env", "no_gpu_env"};
// Every field but these needs a public source.
constexpr std::string_view kUnsourced[] = {"id", "sources", "unverified"};
// Nested fields that cite a source of their own ("torch.build: https://…" in sources).
constexpr std::string_view kOwnSource[] = {"torch.build", "container.toolkit"};
constexpr std::string_view kTorchBuilds[] = {"cuda",   "rocm",        "xpu",        "plugin",
                                             "vendor", "vendor-cuda", "vendor-rocm"};

// The node at "a.b" (a nested field), or an undefined node.
YAML::Node at_path(const YAML::Node& n, std::string_view path) {
  auto dot = path.find('.');
  if (dot == std::string_view::npos) return n[std::string(path)];
  auto parent = n[std::string(path.substr(0, dot))];
  if (!parent.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return parent[std::string(path.substr(dot + 1))];
}

// The compiler knows no vendor of its own: a vendor is whatever the data says. Ids and API
// names only have to be usable where they end up (env values, CDI kinds, label values).
bool is_identifier(std::string_view s, size_t max, bool dashes) {
  if (s.empty() || s.size() > max || s.front() < 'a' || s.front() > 'z') return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (dashes && c == '-');
  });
}

class RegistryParser {
 public:
  RegistryParser(LoadedRegistry& out, YamlReader vendors, YamlReader devices)
      : out_(out), vr_(std::move(vendors)), dr_(std::move(devices)) {}

  void vendors(const YAML::Node& root) {
    auto list = top_level_list(vr_, root, "anygpu.vendors/v1", "vendors");
    std::set<std::string> seen;
    for (const auto& v : list) {
      out_.vendors_.push_back(vendor(v));
      if (!seen.insert(std::string(out_.vendors_.back().id)).second)
        vr_.fail(v, cat({"duplicate vendor id '", out_.vendors_.back().id, "'"}));
    }
  }

  void devices(const YAML::Node& root) {
    auto list = top_level_list(dr_, root, "anygpu.devices/v1", "devices");
    std::set<std::pair<std::string, uint16_t>> seen;
    for (const auto& d : list) {
      out_.devices_.push_back(device(d));
      const auto& spec = out_.devices_.back();
      if (!seen.insert({std::string(spec.vendor), spec.device_id}).second)
        dr_.fail(d, cat({"duplicate device ", spec.vendor, " ", hex(spec.device_id, 4)}));
    }
  }

 private:
  // Both files are {schema: <name>, <key>: [ … ]}.
  static YAML::Node top_level_list(const YamlReader& r, const YAML::Node& root,
                                   std::string_view schema, const std::string& key) {
    const std::string_view keys[] = {"schema", key};
    r.expect_map(root, cat({key, " file"}));
    r.check_keys(root, keys, keys);
    if (r.string_at(root, "schema") != schema)
      r.fail(root["schema"], cat({"schema must be ", schema}));
    auto list = root[key];
    r.expect_sequence(list, key);
    return list;
  }

  std::string_view str(const YamlReader& r, const YAML::Node& map, std::string_view key) {
    return out_.keep(r.string_at(map, key));
  }
  std::string_view opt(const YamlReader& r, const YAML::Node& map, std::string_view key) {
    auto s = r.optional_string(map, key);
    return s ? out_.keep(*s) : std::string_view();
  }
  Strings list(const YamlReader& r, const YAML::Node& n, std::string_view what) {
    if (!n) r.fail(n, cat({"missing key '", what, "'"}));
    std::vector<std::string_view> items;
    for (auto& s : r.strings(n, what)) items.push_back(out_.keep(std::move(s)));
    return out_.keep_list(std::move(items));
  }
  std::span<const NamedValue> named(const YamlReader& r, const YAML::Node& n,
                                    std::string_view what) {
    r.expect_map(n, what);
    std::vector<NamedValue> items;
    for (auto it = n.begin(); it != n.end(); ++it)
      items.push_back(
          {out_.keep(r.scalar(it->first, what)), out_.keep(r.scalar(it->second, what))});
    return out_.keep_list(std::move(items));
  }

  // A variable name where the user's shell will read it: anything else is the file's error, at
  // the name's line and column.
  void env_name(const YAML::Node& at, std::string_view name) const {
    if (!is_env_name(name))
      vr_.fail(at, cat({"'", escape_control(name),
                        "' is not a variable name (letters, digits and '_', not first a digit)"}));
  }
  void env_name_keys(const YAML::Node& map) const {
    for (auto it = map.begin(); it != map.end(); ++it) env_name(it->first, it->first.Scalar());
  }

  Vendor vendor(const YAML::Node& n) {
    const auto& r = vr_;
    r.expect_map(n, "vendor");
    std::vector<std::string_view> required;
    for (auto k : kVendorKeys)
      if (std::find(std::begin(kOptionalVendorKeys), std::end(kOptionalVendorKeys), k) ==
          std::end(kOptionalVendorKeys))
        required.push_back(k);
    r.check_keys(n, kVendorKeys, required);

    Vendor v;
    v.id = str(r, n, "id");
    if (!is_identifier(v.id, 32, false))
      r.fail(n["id"],
             cat({"vendor id '", v.id, "': lower-case letters and digits, a letter first"}));
    v.name = str(r, n, "name");
    v.display_name = str(r, n, "display_name");
    if (v.display_name.empty() || v.display_name.size() > 40)
      r.fail(n["display_name"], "display_name: a short name for messages, 1 to 40 characters");

    auto pci = n["pci"];
    static constexpr std::string_view pci_keys[] = {"vendor_ids", "classes"};
    r.expect_map(pci, "pci");
    r.check_keys(pci, pci_keys, pci_keys);
    v.pci_vendor_ids = hex_list(pci["vendor_ids"], "vendor_ids");
    v.pci_classes = hex_list(pci["classes"], "classes");
    for (size_t i = 0; i < v.pci_classes.size(); ++i) {
      auto cls = v.pci_classes[i] >> 8;
      // Display, processing accelerator, and co-processor (Hygon DCUs enumerate as 0x0b40).
      if (cls != 0x03 && cls != 0x12 && v.pci_classes[i] != 0x0b40)
        r.fail(pci["classes"][i],
               "only display (0x03xx), processing accelerator (0x12xx) and "
               "co-processor (0x0b40) classes");
    }
    v.drivers = list(r, n["drivers"], "drivers");
    v.driver_version = version_sources(n["driver_version"]);
    device_nodes(n["device_nodes"], v);
    v.libraries = libraries(n["libraries"]);
    v.runtimes = runtimes(n["runtimes"]);
    v.smi = list(r, n["smi"], "smi");
    torch(n["torch"], v);
    env(n["env"], v);
    v.backend_names = list(r, n["backend_names"], "backend_names");
    v.cdi_kind = str(r, n, "cdi_kind");
    v.k8s_resource = str(r, n, "k8s_resource");
    v.container = container(n["container"], v);
    if (n["access"]) v.access = access(n["access"], v);
    if (n["slurm"]) v.slurm = slurm(n["slurm"]);
    if (n["kmsg"]) kmsg(n["kmsg"], v);
    v.sources = named(r, n["sources"], "sources");
    v.unverified = n["unverified"] ? list(r, n["unverified"], "unverified") : Strings();
    check_sources(n, v);
    return v;
  }

  void check_sources(const YAML::Node& n, const Vendor& v) {
    const auto& r = vr_;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const auto& key = it->first.Scalar();
      if (std::find(std::begin(kUnsourced), std::end(kUnsourced), key) != std::end(kUnsourced))
        continue;
      bool found = std::any_of(v.sources.begin(), v.sources.end(),
                               [&](const NamedValue& s) { return s.name == key; });
      if (!found) r.fail(n["sources"], cat({"no source for field '", key, "'"}));
    }
    for (auto nested : kOwnSource) {
      bool found = std::any_of(v.sources.begin(), v.sources.end(),
                               [&](const NamedValue& s) { return s.name == nested; });
      if (at_path(n, nested) && !found)
        r.fail(n["sources"], cat({"no source for field '", nested, "'"}));
    }
    for (const auto& s : v.sources) {
      if (!at_path(n, s.name))
        r.fail(n["sources"], cat({"source for absent field '", s.name, "'"}));
      bool marked =
          std::find(v.unverified.begin(), v.unverified.end(), s.name) != v.unverified.end();
      bool ok = s.value.rfind("https://", 0) == 0 || s.value.rfind("anygpu convention", 0) == 0 ||
                (marked && s.value == "none found");
      if (!ok)
        r.fail(n["sources"], cat({"source of '", s.name,
                                  "' must be an https URL (or \"none found\" "
                                  "for a field listed in unverified)"}));
    }
    for (size_t i = 0; i < v.unverified.size(); ++i)
      if (!n[std::string(v.unverified[i])])
        r.fail(n["unverified"][i], cat({"unverified names unknown field '", v.unverified[i], "'"}));
  }

  std::span<const uint16_t> hex_list(const YAML::Node& n, std::string_view what) {
    vr_.expect_sequence(n, what);
    std::vector<uint16_t> ids;
    for (const auto& item : n) ids.push_back(vr_.hex16(item, what));
    if (ids.empty()) vr_.fail(n, cat({what, ": must not be empty"}));
    return out_.keep_list(std::move(ids));
  }

  std::span<const VersionSource> version_sources(const YAML::Node& n) {
    const auto& r = vr_;
    r.expect_sequence(n, "driver_version");
    static constexpr std::string_view keys[] = {"path", "after", "key"};
    static constexpr std::string_view required[] = {"path"};
    std::vector<VersionSource> out;
    for (const auto& item : n) {
      r.expect_map(item, "driver_version");
      r.check_keys(item, keys, required);
      if (item["after"] && item["key"]) r.fail(item, "use either 'after' or 'key', not both");
      out.push_back({str(r, item, "path"), opt(r, item, "after"), opt(r, item, "key")});
    }
    return out_.keep_list(std::move(out));
  }

  void device_nodes(const YAML::Node& n, Vendor& v) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"per_device", "shared", "drm"};
    r.expect_map(n, "device_nodes");
    r.check_keys(n, keys, keys);
    v.per_device_nodes = list(r, n["per_device"], "per_device");
    v.shared_nodes = list(r, n["shared"], "shared");
    v.drm_nodes = r.boolean(n["drm"], "drm");
    for (auto set : {v.per_device_nodes, v.shared_nodes})
      for (auto p : set)
        if (p.rfind("/dev/", 0) != 0) r.fail(n, cat({"device node '", p, "' is not under /dev"}));
  }

  std::span<const LibrarySpec> libraries(const YAML::Node& n) {
    const auto& r = vr_;
    r.expect_sequence(n, "libraries");
    static constexpr std::string_view keys[] = {"api", "sonames", "dirs", "required"};
    std::vector<LibrarySpec> out;
    for (const auto& item : n) {
      r.expect_map(item, "library");
      r.check_keys(item, keys, keys);
      LibrarySpec lib;
      lib.api = str(r, item, "api");
      // An API without a probe in src/probe/libs is located and reported, not called.
      if (!is_identifier(lib.api, 32, true))
        r.fail(item["api"], cat({"library api '", lib.api,
                                 "': lower-case letters, digits and '-', a letter first"}));
      lib.sonames = list(r, item["sonames"], "sonames");
      if (lib.sonames.empty()) r.fail(item["sonames"], "sonames: must not be empty");
      for (size_t i = 0; i < lib.sonames.size(); ++i)
        if (lib.sonames[i].find('/') != std::string_view::npos)
          r.fail(item["sonames"][i], "sonames are file names; put directories in dirs");
      lib.dirs = list(r, item["dirs"], "dirs");
      lib.required = r.boolean(item["required"], "required");
      out.push_back(lib);
    }
    return out_.keep_list(std::move(out));
  }

  std::span<const RuntimeSpec> runtimes(const YAML::Node& n) {
    const auto& r = vr_;
    r.expect_sequence(n, "runtimes");
    static constexpr std::string_view keys[] = {"component", "path", "key", "library", "derived"};
    static constexpr std::string_view required[] = {"component"};
    std::vector<RuntimeSpec> out;
    for (const auto& item : n) {
      r.expect_map(item, "runtime");
      r.check_keys(item, keys, required);
      RuntimeSpec rt;
      rt.component = str(r, item, "component");
      rt.path = opt(r, item, "path");
      rt.key = opt(r, item, "key");
      rt.library = opt(r, item, "library");
      rt.derived = item["derived"] && r.boolean(item["derived"], "derived");
      int forms = !rt.path.empty() + !rt.library.empty() + rt.derived;
      if (forms != 1) r.fail(item, "a runtime needs exactly one of path, library or derived");
      if (!rt.key.empty() && rt.path.empty()) r.fail(item, "key needs a path");
      out.push_back(rt);
    }
    return out_.keep_list(std::move(out));
  }

  void torch(const YAML::Node& n, Vendor& v) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"device", "package", "backend", "build"};
    r.expect_map(n, "torch");
    r.check_keys(n, keys, keys);
    v.torch_device = str(r, n, "device");
    v.torch_package = str(r, n, "package");
    v.dist_backend = str(r, n, "backend");
    v.torch_build_name = str(r, n, "build");
    if (std::find(std::begin(kTorchBuilds), std::end(kTorchBuilds), v.torch_build_name) ==
        std::end(kTorchBuilds))
      r.fail(n["build"],
             cat({"torch build '", v.torch_build_name,
                  "' (use cuda, rocm, xpu, plugin, vendor, vendor-cuda, vendor-rocm)"}));
    if ((v.torch_build_name == "plugin") != (v.torch_package != "torch"))
      r.fail(n["build"],
             "torch build 'plugin' goes with a package other than torch, and only then");
  }

  // Which shared nodes the stack cannot do without, who owns the nodes, how to recreate them.
  AccessSpec access(const YAML::Node& n, const Vendor& v) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"essential", "group", "fix"};
    static constexpr std::string_view required[] = {"essential"};
    r.expect_map(n, "access");
    r.check_keys(n, keys, required);
    AccessSpec a;
    a.essential = list(r, n["essential"], "essential");
    for (size_t i = 0; i < a.essential.size(); ++i)
      if (std::find(v.shared_nodes.begin(), v.shared_nodes.end(), a.essential[i]) ==
          v.shared_nodes.end())
        r.fail(n["essential"][i], cat({"essential: '", a.essential[i],
                                       "' is not one of the vendor's shared device nodes"}));
    a.group = opt(r, n, "group");
    constexpr std::string_view kGroupChars =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
    if (n["group"] && (a.group.empty() || a.group.size() > 32 ||
                       a.group.find_first_not_of(kGroupChars) != std::string_view::npos))
      r.fail(n["group"], cat({"group '", a.group, "' is not a group name"}));
    a.fix = opt(r, n, "fix");
    if (n["fix"] && (a.fix.empty() || a.fix.find('\n') != std::string_view::npos))
      r.fail(n["fix"], "fix: one line of text");
    return a;
  }

  // slurm.gres_flags: environment flags slurmd accepts, no_gpu_env alone (slurmd refuses it
  // beside another: "must be mutually exclusive to all other GRES env flags").
  SlurmSpec slurm(const YAML::Node& n) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"gres_flags"};
    r.expect_map(n, "slurm");
    r.check_keys(n, keys, keys);
    SlurmSpec s;
    s.gres_flags = list(r, n["gres_flags"], "gres_flags");
    if (s.gres_flags.empty()) r.fail(n["gres_flags"], "gres_flags: must not be empty");
    for (size_t i = 0; i < s.gres_flags.size(); ++i) {
      auto f = s.gres_flags[i];
      const auto& at = n["gres_flags"][i];
      if (std::find(std::begin(kGresEnvFlags), std::end(kGresEnvFlags), f) ==
          std::end(kGresEnvFlags))
        r.fail(at, cat({"gres_flags: '", escape_control(f),
                        "' is not a gres.conf environment "
                        "flag (nvidia_gpu_env, amd_gpu_env, intel_gpu_env, opencl_env, "
                        "no_gpu_env)"}));
      if (std::find(s.gres_flags.begin(), s.gres_flags.begin() + i, f) != s.gres_flags.begin() + i)
        r.fail(at, cat({"gres_flags: '", f, "' appears twice"}));
      if (f == "no_gpu_env" && s.gres_flags.size() > 1)
        r.fail(at, "gres_flags: no_gpu_env excludes every other flag");
    }
    return s;
  }

  // How the vendor's kernel driver marks its kernel log lines when dev_printk does not.
  void kmsg(const YAML::Node& n, Vendor& v) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"starts", "contains"};
    r.expect_map(n, "kmsg");
    r.check_keys(n, keys, {});
    v.kmsg_starts = n["starts"] ? list(r, n["starts"], "starts") : Strings();
    v.kmsg_contains = n["contains"] ? list(r, n["contains"], "contains") : Strings();
    if (v.kmsg_starts.empty() && v.kmsg_contains.empty())
      r.fail(n, "kmsg: needs starts or contains");
    for (auto set : {v.kmsg_starts, v.kmsg_contains})
      for (auto m : set)
        if (m.size() < 3) r.fail(n, cat({"kmsg marker '", m, "' is shorter than 3 characters"}));
  }

  void env(const YAML::Node& n, Vendor& v) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"visible_devices", "extra",
                                                "container_visible_devices", "conflicting",
                                                "partition_uuid_since"};
    static constexpr std::string_view required[] = {"visible_devices", "extra"};
    r.expect_map(n, "env");
    r.check_keys(n, keys, required);
    v.visible_devices_env = str(r, n, "visible_devices");
    v.extra_env = named(r, n["extra"], "extra");
    v.container_visible_devices_env = opt(r, n, "container_visible_devices");
    v.conflicting_env = n["conflicting"] ? list(r, n["conflicting"], "conflicting") : Strings();
    v.partition_uuid_since = opt(r, n, "partition_uuid_since");
    // Every name here is printed after `export` by `select` and read back by `eval`.
    env_name(n["visible_devices"], v.visible_devices_env);
    if (n["container_visible_devices"])
      env_name(n["container_visible_devices"], v.container_visible_devices_env);
    env_name_keys(n["extra"]);
    for (size_t i = 0; i < v.conflicting_env.size(); ++i)
      env_name(n["conflicting"][i], v.conflicting_env[i]);
    for (size_t i = 0; i < v.conflicting_env.size(); ++i)
      if (v.conflicting_env[i] == v.visible_devices_env)
        r.fail(n["conflicting"][i], "conflicting names the vendor's own visible_devices");
  }

  ContainerSpec container(const YAML::Node& n, const Vendor& v) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {
        "drm", "withhold", "mounts", "env", "groups", "driver_files", "physical_names", "toolkit"};
    static constexpr std::string_view required[] = {"drm", "withhold", "mounts", "env", "groups"};
    r.expect_map(n, "container");
    r.check_keys(n, keys, required);
    ContainerSpec c;
    c.drm = list(r, n["drm"], "drm");
    for (size_t i = 0; i < c.drm.size(); ++i)
      if (c.drm[i] != "card" && c.drm[i] != "render")
        r.fail(n["drm"][i], cat({"drm: \"", c.drm[i], "\" is not card or render"}));
    c.withhold = list(r, n["withhold"], "withhold");
    for (size_t i = 0; i < c.withhold.size(); ++i)
      if (std::find(v.shared_nodes.begin(), v.shared_nodes.end(), c.withhold[i]) ==
          v.shared_nodes.end())
        r.fail(n["withhold"][i], cat({"withhold: '", c.withhold[i],
                                      "' is not one of the vendor's shared device nodes"}));
    c.mounts = mounts(n["mounts"]);
    c.env = named(r, n["env"], "env");
    env_name_keys(n["env"]);
    c.groups = list(r, n["groups"], "groups");
    if (n["driver_files"]) c.driver_files = driver_files(n["driver_files"]);
    if (n["toolkit"]) c.toolkit = toolkit(n["toolkit"]);
    if (n["physical_names"]) {
      const auto& p = n["physical_names"];
      if (!p.IsScalar() || (p.Scalar() != "true" && p.Scalar() != "false"))
        r.fail(p, "physical_names: true or false");
      c.physical_names = p.Scalar() == "true";
      bool by_minor = std::any_of(v.per_device_nodes.begin(), v.per_device_nodes.end(),
                                  [](std::string_view x) { return x.find("{minor}") != x.npos; });
      if (c.physical_names && !by_minor)
        r.fail(p, "physical_names for a vendor without a {minor} per-device node");
    }
    return c;
  }

  // container.driver_files: each field cites its own public source (https) and may be marked
  // unverified; names are file names, paths absolute without "..".
  DriverFilesSpec driver_files(const YAML::Node& n) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {
        "libraries", "library_patterns", "library_dirs", "tools",   "tool_dirs",
        "firmware",  "sockets",          "config",       "sources", "unverified"};
    static constexpr std::string_view required[] = {"sources"};
    r.expect_map(n, "driver_files");
    r.check_keys(n, keys, required);
    auto field = [&](std::string_view key) {
      auto node = n[std::string(key)];
      return node ? list(r, node, key) : Strings();
    };
    DriverFilesSpec f;
    f.libraries = field("libraries");
    f.library_patterns = field("library_patterns");
    f.library_dirs = field("library_dirs");
    f.tools = field("tools");
    f.tool_dirs = field("tool_dirs");
    f.firmware = field("firmware");
    f.sockets = field("sockets");
    f.config = field("config");
    f.sources = named(r, n["sources"], "sources");
    f.unverified = field("unverified");
    for (auto names : {f.libraries, f.library_patterns, f.tools})
      for (auto name : names)
        if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..")
          r.fail(n,
                 cat({"driver_files: '", name, "' is not a file name; put directories in *_dirs"}));
    for (auto paths : {f.library_dirs, f.tool_dirs, f.firmware, f.sockets, f.config})
      for (auto p : paths)
        if (p.size() < 2 || p[0] != '/' || p.find("..") != std::string_view::npos)
          r.fail(n, cat({"driver_files: '", p, "' is not an absolute path without '..'"}));
    for (auto it = n.begin(); it != n.end(); ++it) {
      const auto& key = it->first.Scalar();
      if (key == "sources" || key == "unverified") continue;
      bool cited = std::any_of(f.sources.begin(), f.sources.end(),
                               [&](const NamedValue& s) { return s.name == key; });
      if (!cited) r.fail(n["sources"], cat({"driver_files: no source for '", key, "'"}));
    }
    for (const auto& s : f.sources) {
      if (!n[std::string(s.name)])
        r.fail(n["sources"], cat({"driver_files: source for absent field '", s.name, "'"}));
      if (!s.value.starts_with("https://"))
        r.fail(n["sources"], cat({"driver_files: source of '", s.name, "' must be an https URL"}));
    }
    for (auto u : f.unverified)
      if (!n[std::string(u)])
        r.fail(n["unverified"], cat({"driver_files: unverified names unknown field '", u, "'"}));
    return f;
  }

  // container.toolkit: the vendor's runtime hook, how to tell it is installed, how to get it.
  ToolkitSpec toolkit(const YAML::Node& n) {
    const auto& r = vr_;
    static constexpr std::string_view keys[] = {"name", "files", "hint", "cdi_generate"};
    static constexpr std::string_view required[] = {"name", "files", "hint"};
    r.expect_map(n, "toolkit");
    r.check_keys(n, keys, required);
    ToolkitSpec t;
    t.name = str(r, n, "name");
    if (t.name.empty()) r.fail(n["name"], "toolkit name: must not be empty");
    t.files = list(r, n["files"], "files");
    if (t.files.empty()) r.fail(n["files"], "toolkit files: must not be empty");
    for (size_t i = 0; i < t.files.size(); ++i)
      if (t.files[i].size() < 2 || t.files[i][0] != '/' ||
          t.files[i].find("..") != std::string_view::npos)
        r.fail(n["files"][i],
               cat({"toolkit file '", t.files[i], "' is not an absolute path without '..'"}));
    t.hint = str(r, n, "hint");
    if (t.hint.empty()) r.fail(n["hint"], "toolkit hint: must not be empty");
    t.cdi_generate = opt(r, n, "cdi_generate");
    if (n["cdi_generate"] && !t.cdi_generate.ends_with("="))
      r.fail(n["cdi_generate"],
             "cdi_generate: the command up to its output option, ending in '=' (--output=)");
    return t;
  }

  std::span<const MountSpec> mounts(const YAML::Node& n) {
    const auto& r = vr_;
    r.expect_sequence(n, "mounts");
    static constexpr std::string_view keys[] = {"path", "options"};
    static constexpr std::string_view options[] = {"ro", "nosuid", "nodev", "noexec"};
    std::vector<MountSpec> out;
    for (const auto& item : n) {
      r.expect_map(item, "mount");
      r.check_keys(item, keys, keys);
      MountSpec m;
      m.path = str(r, item, "path");
      if (m.path.size() < 2 || m.path.front() != '/' ||
          m.path.find("/../") != std::string_view::npos || m.path.ends_with("/.."))
        r.fail(item["path"], cat({"mount path '", m.path, "' must be absolute, not /, no .."}));
      m.options = list(r, item["options"], "options");
      for (size_t i = 0; i < m.options.size(); ++i)
        if (std::find(std::begin(options), std::end(options), m.options[i]) == std::end(options))
          r.fail(item["options"][i],
                 cat({"mount option '", m.options[i], "' (use ro, nosuid, nodev, noexec)"}));
      if (std::find(m.options.begin(), m.options.end(), "ro") == m.options.end())
        r.fail(item["options"], "driver mounts are read-only: options must include ro");
      out.push_back(m);
    }
    return out_.keep_list(std::move(out));
  }

  DeviceSpec device(const YAML::Node& n) {
    const auto& r = dr_;
    static constexpr std::string_view keys[] = {
        "vendor",        "device_id",     "name",
        "arch",          "memory_gib",    "memory_bandwidth_gbps",
        "matmul_tflops", "matmul_source", "integrated",
        "segment",       "source",        "unverified"};
    static constexpr std::string_view required[] = {"vendor", "device_id", "name", "arch",
                                                    "source"};
    r.expect_map(n, "device");
    r.check_keys(n, keys, required);
    DeviceSpec d;
    d.vendor = str(r, n, "vendor");
    bool known = std::any_of(out_.vendors_.begin(), out_.vendors_.end(),
                             [&](const Vendor& v) { return v.id == d.vendor; });
    if (!known) r.fail(n["vendor"], cat({"vendor '", d.vendor, "' is not in the vendor registry"}));
    d.device_id = r.hex16(n["device_id"], "device_id");
    d.name = str(r, n, "name");
    d.arch = str(r, n, "arch");
    if (n["memory_gib"]) d.memory_gib = r.number(n["memory_gib"], "memory_gib");
    if (n["memory_bandwidth_gbps"])
      d.memory_bandwidth_gbps = r.number(n["memory_bandwidth_gbps"], "memory_bandwidth_gbps");
    if (n["matmul_tflops"]) {
      d.matmul_tflops = r.number(n["matmul_tflops"], "matmul_tflops");
      if (*d.matmul_tflops <= 0) r.fail(n["matmul_tflops"], "matmul_tflops must be positive");
      if (!n["matmul_source"]) r.fail(n, "matmul_tflops needs matmul_source (the datasheet's URL)");
    }
    if (n["matmul_source"]) {
      if (!d.matmul_tflops) r.fail(n["matmul_source"], "matmul_source without matmul_tflops");
      d.matmul_source = str(r, n, "matmul_source");
      if (d.matmul_source.rfind("https://", 0) != 0)
        r.fail(n["matmul_source"], "matmul_source must be an https URL");
    }
    if (n["integrated"]) d.integrated = r.boolean(n["integrated"], "integrated");
    if (d.integrated && (d.memory_gib || d.memory_bandwidth_gbps))
      r.fail(n["integrated"], "an integrated GPU uses system memory: no memory_gib or bandwidth");
    if (n["segment"]) {
      d.segment = str(r, n, "segment");
      if (d.segment != "datacenter" && d.segment != "workstation" && d.segment != "consumer")
        r.fail(n["segment"],
               cat({"segment '", d.segment, "' (use datacenter, workstation or consumer)"}));
    }
    d.source = str(r, n, "source");
    if (d.source.rfind("https://", 0) != 0) r.fail(n["source"], "source must be an https URL");
    d.unverified = n["unverified"] ? list(r, n["unverified"], "unverified") : Strings();
    for (size_t i = 0; i < d.unverified.size(); ++i)
      if (std::find(std::begin(keys), std::end(keys), d.unverified[i]) == std::end(keys))
        r.fail(n["unverified"][i], cat({"unverified names unknown field '", d.unverified[i], "'"}));
    return d;
  }

  LoadedRegistry& out_;
  YamlReader vr_;
  YamlReader dr_;
};

}  // namespace

std::string_view LoadedRegistry::keep(std::string s) {
  auto owned = std::make_shared<std::string>(std::move(s));
  storage_.push_back(owned);
  return *owned;
}

Result<std::unique_ptr<LoadedRegistry>> load_registry(std::string_view vendors_text,
                                                      const std::string& vendors_file,
                                                      std::string_view devices_text,
                                                      const std::string& devices_file) {
  YamlReader vr(vendors_file), dr(devices_file);
  auto vroot = vr.parse(vendors_text);
  if (!vroot) return vroot.error();
  auto droot = dr.parse(devices_text);
  if (!droot) return droot.error();
  auto out = std::make_unique<LoadedRegistry>();
  try {
    RegistryParser p(*out, vr, dr);
    p.vendors(*vroot);
    p.devices(*droot);
  } catch (const LocatedError& e) {
    return bad_input(e.message);
  } catch (const YAML::Exception& e) {
    return bad_input(cat({vendors_file, ": ", e.what()}));
  }
  return out;
}

}  // namespace anygpu
