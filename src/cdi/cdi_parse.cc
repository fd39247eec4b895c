// One CDI spec document. Runtimes parse JSON and YAML specs alike with a strict YAML decoder
// (unknown fields rejected), so this does the same with yaml-cpp; a .json file is first parsed
// as JSON so a syntax error is reported where a JSON reader would report it.
#include <nlohmann/json.hpp>
#include <set>

#include "cdi/cdi.h"
#include "cdi/cdi_names.h"
#include "cdi/cdi_version.h"
#include "util/json_parse.h"
#include "util/strings.h"
#include "util/yaml_reader.h"

namespace anygpu {

namespace {

constexpr std::string_view kSpecKeys[] = {"cdiVersion", "kind", "annotations", "devices",
                                          "containerEdits"};
constexpr std::string_view kDeviceKeys[] = {"name", "annotations", "containerEdits"};
constexpr std::string_view kEditKeys[] = {"env",    "deviceNodes", "hooks",
                                          "mounts", "intelRdt",    "additionalGids"};
constexpr std::string_view kNodeKeys[] = {"path",     "hostPath",    "type", "major", "minor",
                                          "fileMode", "permissions", "uid",  "gid"};
constexpr std::string_view kMountKeys[] = {"hostPath", "containerPath", "options", "type"};
constexpr std::string_view kHookKeys[] = {"hookName", "path", "args", "env", "timeout"};

class SpecParser {
 public:
  explicit SpecParser(const std::string& file) : r_(file) {}

  CdiSpec parse(const YAML::Node& doc) {
    r_.expect_map(doc, "CDI spec");
    r_.check_keys(doc, kSpecKeys, std::array<std::string_view, 3>{"cdiVersion", "kind", "devices"});
    CdiSpec spec;
    spec.file = r_.file();
    spec.cdi_version = r_.string_at(doc, "cdiVersion");
    spec.kind = r_.string_at(doc, "kind");
    if (auto why = kind_error(spec.kind)) r_.fail(doc["kind"], *why);
    if (spec.kind.substr(spec.kind.find('/') + 1).find('.') != std::string::npos)
      features_.class_with_dot = true;
    if (doc["annotations"]) annotations(doc["annotations"]);
    if (auto edits = doc["containerEdits"]) {
      spec.common_device_paths = container_edits(edits, nullptr, spec.common_edits).first;
      add_risks("containerEdits", spec.common_edits, spec.risks);
    }
    auto devices = doc["devices"];
    r_.expect_sequence(devices, "devices");
    if (devices.size() == 0) r_.fail(devices, "devices: a spec must name at least one device");
    std::set<std::string> names;
    for (const auto& d : devices) {
      auto device = this->device(d);
      if (!names.insert(device.name).second)
        r_.fail(d["name"], cat({"device name '", device.name, "' appears twice"}));
      add_risks(cat({"device ", device.name}), device.edits, spec.risks);
      spec.devices.push_back(std::move(device));
    }
    if (!is_known_cdi_version(spec.cdi_version))
      r_.fail(doc["cdiVersion"],
              cat({"cdiVersion \"", spec.cdi_version, "\" is not a released CDI version (",
                   kCdiVersions[0], " to ", std::end(kCdiVersions)[-1], ")"}));
    spec.minimum_version = minimum_cdi_version(features_);
    if (compare_cdi_versions(spec.cdi_version, spec.minimum_version) < 0)
      r_.fail(doc["cdiVersion"],
              cat({"cdiVersion ", spec.cdi_version, " is too old for this content, which needs ",
                   spec.minimum_version, " (runtimes reject it)"}));
    return spec;
  }

 private:
  CdiDevice device(const YAML::Node& d) {
    r_.expect_map(d, "device");
    r_.check_keys(d, kDeviceKeys, std::array<std::string_view, 1>{"name"});
    CdiDevice out;
    out.name = r_.string_at(d, "name");
    if (auto why = device_name_error(out.name)) r_.fail(d["name"], *why);
    if (!(out.name[0] >= 'a' && out.name[0] <= 'z') && !(out.name[0] >= 'A' && out.name[0] <= 'Z'))
      features_.name_starts_nonletter = true;
    if (d["annotations"]) annotations(d["annotations"]);
    if (auto edits = d["containerEdits"]) {
      auto [paths, hosts] = container_edits(edits, &out, out.edits);
      out.device_paths = std::move(paths);
    }
    return out;
  }

  void annotations(const YAML::Node& a) {
    r_.expect_map(a, "annotations");
    for (auto it = a.begin(); it != a.end(); ++it) {
      r_.scalar(it->first, "annotation key");
      r_.scalar(it->second, "annotation value");
    }
    if (a.size() > 0) features_.annotations = true;
  }

  // Container-side paths of the device nodes; host paths go into `device` when given.
  // `granted` receives every edit, host paths as the file names them.
  std::pair<std::vector<std::string>, std::vector<std::string>> container_edits(
      const YAML::Node& e, CdiDevice* device, ContainerEdits& granted) {
    r_.expect_map(e, "containerEdits");
    r_.check_keys(e, kEditKeys, {});
    std::vector<std::string> paths, hosts;
    if (auto env = e["env"]) {
      for (const auto& v : r_.strings(env, "env"))
        if (v.find('=') == std::string::npos || v.front() == '=')
          r_.fail(env, cat({"env: \"", v, "\" is not NAME=VALUE"}));
        else
          granted.env.push_back(v);
    }
    if (auto nodes = e["deviceNodes"]) {
      r_.expect_sequence(nodes, "deviceNodes");
      for (const auto& n : nodes) {
        r_.expect_map(n, "device node");
        r_.check_keys(n, kNodeKeys, std::array<std::string_view, 1>{"path"});
        auto path = absolute(n, "path");
        std::string host = path;
        if (n["hostPath"]) {
          host = absolute(n, "hostPath");
          features_.host_path = true;
        }
        if (auto t = n["type"]) {
          auto type = r_.scalar(t, "type");
          if (type != "c" && type != "b" && type != "u" && type != "p")
            r_.fail(t, cat({"type: \"", type, "\" is not c, b, u or p"}));
        }
        for (auto key : {"major", "minor", "uid", "gid"})
          if (auto v = n[key]; v && !parse_uint(r_.scalar(v, key)))
            r_.fail(v, cat({key, ": expected a whole number"}));
        paths.push_back(path);
        hosts.push_back(host);
        granted.device_nodes.push_back({path, host, {}, {}, {}});
      }
    }
    if (auto mounts = e["mounts"]) {
      r_.expect_sequence(mounts, "mounts");
      for (const auto& m : mounts) {
        r_.expect_map(m, "mount");
        r_.check_keys(m, kMountKeys, std::array<std::string_view, 2>{"hostPath", "containerPath"});
        MountEdit mount{r_.string_at(m, "hostPath"), absolute(m, "containerPath"), {}};
        if (m["options"]) mount.options = r_.strings(m["options"], "options");
        granted.mounts.push_back(std::move(mount));
        if (m["type"]) features_.mount_type = true;
      }
    }
    if (auto hooks = e["hooks"]) {
      r_.expect_sequence(hooks, "hooks");
      for (const auto& h : hooks) {
        r_.expect_map(h, "hook");
        r_.check_keys(h, kHookKeys, std::array<std::string_view, 2>{"hookName", "path"});
        HookEdit hook{r_.string_at(h, "hookName"), absolute(h, "path"), {}, {}};
        if (h["args"]) hook.args = r_.strings(h["args"], "args");
        if (h["env"]) hook.env = r_.strings(h["env"], "env");
        granted.hooks.push_back(std::move(hook));
      }
    }
    if (e["intelRdt"]) features_.intel_rdt = true;
    if (auto g = e["additionalGids"]) {
      for (const auto& v : r_.strings(g, "additionalGids"))
        if (!parse_uint(v)) r_.fail(g, "additionalGids: expected whole numbers");
      if (g.size() > 0) features_.additional_gids = true;
    }
    if (device) device->host_paths = hosts;
    return {paths, hosts};
  }

  // Edits no container should get from a spec anyone could have written.
  static void add_risks(const std::string& where, const ContainerEdits& e,
                        std::vector<std::string>& risks) {
    static constexpr std::string_view kSystemDirs[] = {"/", "/dev", "/etc", "/proc", "/sys"};
    for (const auto& m : e.mounts) {
      auto host = m.host_path;
      while (host.size() > 1 && host.back() == '/') host.pop_back();
      for (auto dir : kSystemDirs)
        if (host == dir && !m.read_only())
          risks.push_back(cat({where, ": read-write mount of the host's ", dir}));
    }
    for (const auto& h : e.hooks)
      if (h.hook_name == "createRuntime" || h.hook_name == "prestart")
        risks.push_back(cat({where, ": ", h.hook_name, " hook ", h.path,
                             " (runs on the host, in the runtime's namespaces)"}));
    for (const auto& v : e.env)
      for (auto name : {"LD_PRELOAD", "LD_AUDIT"})
        if (v.starts_with(cat({name, "="})))
          risks.push_back(cat({where, ": ", name, " in the environment (", v, ")"}));
  }

  std::string absolute(const YAML::Node& map, std::string_view key) {
    auto v = r_.string_at(map, key);
    if (v.front() != '/')
      r_.fail(map[std::string(key)], cat({key, ": \"", v, "\" is not absolute"}));
    return v;
  }

  YamlReader r_;
  CdiFeatures features_;
};

}  // namespace

Result<CdiSpec> parse_cdi_spec(std::string_view text, const std::string& file) {
  if (file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0) {
    try {
      auto checked = nlohmann::json::parse(text.begin(), text.end());
      (void)checked;
    } catch (const nlohmann::json::parse_error& e) {
      // nlohmann reports the byte just past the fault (1-based); point at the fault.
      size_t at = e.byte > 0 ? e.byte - 1 : 0;
      std::string what = e.what();
      if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
      return bad_input(cat({file, ":", line_column(text, at), ": invalid JSON: ", what}));
    }
  }
  YamlReader reader(file);
  auto doc = reader.parse(text);
  if (!doc) return doc.error();
  try {
    return SpecParser(file).parse(*doc);
  } catch (const LocatedError& e) {
    return bad_input(e.message);
  } catch (const YAML::Exception& e) {
    return bad_input(cat({file, ":", std::to_string(e.mark.line + 1), ":",
                          std::to_string(e.mark.column + 1), ": ", e.msg}));
  }
}

}  // namespace anygpu
