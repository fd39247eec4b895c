#include "launch/container_plan.h"

#include <algorithm>

#include "util/strings.h"

namespace anygpu {

namespace {

// Display-only node: compute never opens it, so least access leaves it out.
constexpr std::string_view kDisplayOnlyNodes[] = {"/dev/nvidia-modeset"};

// Driver files the Ascend runtime inside a container reads (what Ascend's own container runtime
// mounts), read-only.
constexpr std::string_view kAscendDriverMounts[] = {"/usr/local/Ascend/driver", "/usr/local/dcmi",
                                                    "/usr/local/bin/npu-smi",
                                                    "/etc/ascend_install.info"};

bool is_drm(std::string_view path) {
  return path.starts_with("/dev/dri/");
}
bool is_render(std::string_view path) {
  return path.starts_with("/dev/dri/renderD");
}

// ROCm (AMD, Hygon) computes through /dev/kfd and the render node; the card node is for display.
bool render_only(std::string_view vendor) {
  return vendor == "amd" || vendor == "hygon";
}

void add_unique(std::vector<std::string>& v, std::string s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

std::vector<std::string> device_paths(const Device& d, const Vendor* v) {
  std::vector<std::string> out;
  for (const auto& n : d.device_nodes) {
    if (is_drm(n) && render_only(d.vendor) && !is_render(n)) continue;
    add_unique(out, n);
  }
  if (v) {
    for (auto pattern : v->per_device_nodes) {
      // {minor} needs the device's own minor; {index} is the PCI-order index.
      if (pattern.find("{minor}") != std::string_view::npos && !d.minor) continue;
      auto p = replace_placeholder(pattern, "index", std::to_string(d.index));
      if (d.minor) p = replace_placeholder(p, "minor", std::to_string(*d.minor));
      // Probed nodes are authoritative for this vendor when present.
      if (d.device_nodes.empty()) add_unique(out, p);
    }
    if (v->drm_nodes && d.device_nodes.empty()) {
      if (d.render_node) add_unique(out, *d.render_node);
      if (d.card_node && !render_only(d.vendor)) add_unique(out, *d.card_node);
    }
  }
  return out;
}

std::vector<std::string> shared_paths(const Vendor* v) {
  std::vector<std::string> out;
  if (!v) return out;
  for (auto n : v->shared_nodes) {
    if (std::find(std::begin(kDisplayOnlyNodes), std::end(kDisplayOnlyNodes), n) !=
        std::end(kDisplayOnlyNodes))
      continue;
    out.emplace_back(n);
  }
  return out;
}

std::vector<std::string> driver_mounts(std::string_view vendor) {
  std::vector<std::string> out;
  if (vendor == "ascend")
    for (auto m : kAscendDriverMounts) out.emplace_back(m);
  return out;
}

}  // namespace

std::vector<std::string> container_candidate_paths(const Selection& selection,
                                                   const Registry& registry) {
  const Vendor* v = registry.vendor(selection.vendor);
  std::vector<std::string> out;
  for (const auto& d : selection.devices)
    for (auto& p : device_paths(d, v)) add_unique(out, std::move(p));
  for (auto& p : shared_paths(v)) add_unique(out, std::move(p));
  for (auto& p : driver_mounts(selection.vendor)) add_unique(out, std::move(p));
  return out;
}

Result<std::string> choose_engine(const LaunchOptions& options, const HostFacts& facts) {
  if (options.engine) {
    if (*options.engine != "podman" && *options.engine != "docker")
      return bad_input(
          cat({"unknown container engine '", *options.engine, "' (use podman or docker)"}));
    return *options.engine;
  }
  auto on_path = [&](std::string_view e) {
    return std::find(facts.engines_on_path.begin(), facts.engines_on_path.end(), e) !=
           facts.engines_on_path.end();
  };
  if (on_path("podman")) return std::string("podman");
  if (on_path("docker")) return std::string("docker");
  return bad_input("no container engine: neither podman nor docker is on PATH");
}

Result<LaunchPlan> plan_container(const Selection& selection, const LaunchOptions& options,
                                  const HostFacts& facts, const std::vector<EnvVar>& inner_env,
                                  const std::vector<std::string>& inner_argv,
                                  const Registry& registry) {
  auto engine = choose_engine(options, facts);
  if (!engine) return engine.error();
  if (options.user.empty()) return bad_input("--user must not be empty");
  if (options.shm_size.empty()) return bad_input("--shm-size must not be empty");
  const Vendor* v = registry.vendor(selection.vendor);

  LaunchPlan plan;
  plan.mode = "container";
  plan.engine = *engine;
  auto& a = plan.argv;
  a = {*engine, "run", "--rm"};
  // Least privilege: no capabilities, no privilege gain through setuid binaries, not root.
  a.insert(a.end(),
           {"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user", options.user});
  // Data loaders pass batches through /dev/shm; the engines' 64 MiB default stalls them.
  a.insert(a.end(), {"--shm-size", options.shm_size});
  if (options.read_only) {
    a.push_back("--read-only");
    // Podman mounts a tmpfs on /tmp under --read-only by itself; Docker does not.
    if (*engine == "docker") a.insert(a.end(), {"--tmpfs", "/tmp"});
  }
  a.insert(a.end(), {"-v", facts.cwd + ":/workspace", "-w", "/workspace"});

  bool cdi = facts.cdi_names && facts.cdi_names->size() == selection.devices.size() &&
             !selection.devices.empty();
  bool any_drm = false;
  for (const auto& d : selection.devices) {
    PlanDevice pd{d.vendor, d.index, d.pci.address.str(), {}};
    if (!cdi) {
      for (const auto& p : device_paths(d, v)) {
        if (!facts.node_exists(p)) continue;
        pd.nodes.push_back(p);
        any_drm = any_drm || is_drm(p);
      }
    }
    plan.devices.push_back(std::move(pd));
  }
  if (cdi) {
    for (const auto& name : *facts.cdi_names) a.insert(a.end(), {"--device", name});
    plan.notes.push_back(
        cat({"devices by CDI name (", join(*facts.cdi_names, ", "), "): a spec covers them"}));
  } else {
    auto device_arg = [&](const std::string& p) {
      a.insert(a.end(), {"--device", cat({facts.root_prefix, p, ":", p})});
    };
    for (const auto& d : plan.devices)
      for (const auto& p : d.nodes) device_arg(p);
    for (const auto& p : shared_paths(v)) {
      if (facts.node_exists(p))
        device_arg(p);
      else
        plan.notes.push_back(cat({"shared node ", p, " is absent on this host: not passed"}));
    }
    if (any_drm) {
      for (const auto& g : kDeviceGroups) {
        auto it = facts.group_ids.find(g);
        if (it == facts.group_ids.end()) {
          plan.notes.push_back(
              cat({"group ", g, " is not in the host's /etc/group: no --group-add"}));
          continue;
        }
        a.insert(a.end(), {"--group-add", std::to_string(it->second)});
      }
    }
    for (const auto& m : driver_mounts(selection.vendor))
      if (facts.node_exists(m))
        a.insert(a.end(), {"-v", cat({facts.root_prefix, m, ":", m, ":ro"})});
  }

  std::vector<EnvVar> env = inner_env;
  env.emplace_back("PYTHONUNBUFFERED", "1");
  // Inside, only the selected devices exist, so the in-process variable counts from 0.
  if (v && !v->visible_devices_env.empty() && !selection.devices.empty()) {
    std::vector<std::string> renumbered;
    for (size_t i = 0; i < selection.devices.size(); ++i) renumbered.push_back(std::to_string(i));
    auto name = std::string(v->visible_devices_env);
    auto it =
        std::find_if(env.begin(), env.end(), [&](const EnvVar& e) { return e.first == name; });
    if (it != env.end())
      it->second = join(renumbered, ",");
    else
      env.emplace_back(name, join(renumbered, ","));
  }
  // An image built FROM nvidia/cuda says NVIDIA_VISIBLE_DEVICES=all; with NVIDIA's runtime hook
  // installed that would add every GPU. "void" turns the hook off: the devices are ours to pass.
  if (selection.vendor == "nvidia") env.emplace_back("NVIDIA_VISIBLE_DEVICES", "void");
  for (const auto& [name, value] : env) a.insert(a.end(), {"-e", cat({name, "=", value})});
  a.insert(a.end(), options.engine_args.begin(), options.engine_args.end());
  a.push_back(*options.image);
  a.insert(a.end(), inner_argv.begin(), inner_argv.end());
  return plan;
}

}  // namespace anygpu
