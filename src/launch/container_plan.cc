#include "launch/container_plan.h"

#include <algorithm>
#include <map>

#include "container/driver_source.h"
#include "launch/engine_args.h"
#include "launch/engine_flags.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// The loader searches its default directories without a cache entry (glibc's system dirs);
// only the vendor's own folders need naming.
bool is_default_library_dir(std::string_view d) {
  static constexpr std::string_view kDefault[] = {"/lib",
                                                  "/usr/lib",
                                                  "/lib64",
                                                  "/usr/lib64",
                                                  "/lib/x86_64-linux-gnu",
                                                  "/usr/lib/x86_64-linux-gnu",
                                                  "/lib/aarch64-linux-gnu",
                                                  "/usr/lib/aarch64-linux-gnu"};
  return std::find(std::begin(kDefault), std::end(kDefault), d) != std::end(kDefault);
}

// Variables a container's environment must not take from `--engine-arg`: those anygpu sets in
// it, and every vendor's variables through which a runtime or its hook picks devices.
std::vector<std::string> env_anygpu_decides(const Registry& registry,
                                            const std::vector<EnvVar>& env) {
  std::vector<std::string> names;
  for (const auto& e : env) names.push_back(e.first);
  for (const auto& v : registry.vendors()) {
    for (auto n : {v.visible_devices_env, v.container_visible_devices_env})
      if (!n.empty()) names.emplace_back(n);
    for (auto n : v.conflicting_env) names.emplace_back(n);
    for (const auto& e : v.container.env) names.emplace_back(e.name);
  }
  return names;
}

// The visible-devices numbers inside the container, where only the selected devices exist.
// Whole devices and AMD partitions count from 0 (ROCr enumerates the render nodes it may open).
// An Intel tile has no node of its own: the container gets its card, every tile of it, and
// Level Zero's flat numbering (ZE_FLAT_DEVICE_HIERARCHY=FLAT, set by select) gives each card
// passed in as many numbers as it has tiles, in PCI order; a tiled card has two
// (probe/vendors/intel.cc), so a tile is its card's first number plus its index.
std::vector<std::string> numbers_inside(const Selection& selection) {
  std::vector<std::string> out;
  bool tiles = false;
  for (size_t i = 0; i < selection.devices.size(); ++i)
    tiles = tiles || (selection.vendor == "intel" && selection.partition_of(i));
  if (!tiles) {
    for (size_t i = 0; i < selection.devices.size(); ++i) out.push_back(std::to_string(i));
    return out;
  }
  std::map<PciAddress, int> width, first;
  for (size_t i = 0; i < selection.devices.size(); ++i)
    width[selection.devices[i].pci.address] = selection.partition_of(i) ? 2 : 1;
  int next = 0;
  for (const auto& [address, w] : width) first[address] = next, next += w;
  for (size_t i = 0; i < selection.devices.size(); ++i) {
    const auto* p = selection.partition_of(i);
    out.push_back(std::to_string(first[selection.devices[i].pci.address] + (p ? p->index : 0)));
  }
  return out;
}

}  // namespace

bool names_mig_instances(const Selection& s) {
  if (s.vendor != "nvidia") return false;
  for (size_t i = 0; i < s.devices.size(); ++i)
    if (s.partition_of(i)) return true;
  return false;
}

std::string loader_path_without_hook(const std::vector<std::string>& folders) {
  std::vector<std::string> keep;
  for (const auto& f : folders)
    if (!is_default_library_dir(f)) keep.push_back(f);
  return join(keep, ":");
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
  // Every value that reaches the engine's argv is checked, so none turns into another flag.
  for (auto check : {check_image_reference(*options.image, "--container"),
                     check_container_user(options.user, "--user"),
                     check_shm_size(options.shm_size, "--shm-size")})
    if (check) return *check;
  if (facts.root_prefix.find(':') != std::string::npos)
    return bad_input(cat({"--root ", facts.root_prefix,
                          ": a ':' in the root cannot be passed to --device HOST:CONTAINER"}));
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
  // --mount, not -v: a working directory with ':' or ',' in its name still mounts.
  a.insert(a.end(), {"--mount", bind_mount_arg({facts.cwd, "/workspace", {}}), "-w", "/workspace"});

  const auto& edits = facts.edits;
  std::string library_path;  // without a CDI spec: the update-ldcache hook's stand-in
  if (edits.devices.size() != selection.devices.size())
    return internal_error("container edits do not match the selection");
  bool cdi = facts.cdi_names && facts.cdi_names->size() == selection.devices.size() &&
             !selection.devices.empty();
  for (size_t i = 0; i < selection.devices.size(); ++i) {
    const auto& d = selection.devices[i];
    PlanDevice pd{d.vendor, d.index, d.pci.address.str(), {}, {}};
    if (const auto* p = selection.partition_of(i)) pd.partition = *p;
    if (!cdi)
      for (const auto& n : edits.devices[i].edits.device_nodes) pd.nodes.push_back(n.path);
    plan.devices.push_back(std::move(pd));
  }
  plan.notes.insert(plan.notes.end(), edits.notes.begin(), edits.notes.end());
  if (cdi) {
    for (const auto& name : *facts.cdi_names) a.insert(a.end(), {"--device", name});
    plan.notes.push_back(
        cat({"devices by CDI name (", join(*facts.cdi_names, ", "), "): a spec covers them"}));
  } else {
    auto all = edits.merged();
    for (const auto& n : all.device_nodes)
      a.insert(a.end(), {"--device", cat({n.host_path, ":", n.path})});
    for (const auto& m : all.mounts) a.insert(a.end(), {"--mount", bind_mount_arg(m)});
    for (const auto& h : all.hooks)
      if (!is_anygpu_hook(h))
        plan.notes.push_back(cat({"warning: ", h.hook_name, " hook ", h.path,
                                  " needs a CDI spec (an engine's command line cannot run it)"}));
    library_path = loader_path_without_hook(all.library_folders);
    if (!library_path.empty())
      plan.notes.push_back(
          cat({"no CDI spec: the driver's library folders go into "
               "LD_LIBRARY_PATH (",
               library_path,
               ") instead of the container's "
               "loader cache"}));
  }
  // The host's numbers: with or without CDI (anygpu's specs carry no additionalGids).
  for (auto gid : edits.common.additional_gids)
    a.insert(a.end(), {"--group-add", std::to_string(gid)});

  std::vector<EnvVar> env = inner_env;
  env.emplace_back("PYTHONUNBUFFERED", "1");
  // Inside, only the selected devices exist, so the in-process variable is renumbered
  // (numbers_inside). MIG instances keep their MIG-<uuid>, the one name CUDA takes for them,
  // valid inside as outside.
  if (v && !v->visible_devices_env.empty() && !selection.devices.empty() &&
      !names_mig_instances(selection)) {
    auto renumbered = numbers_inside(selection);
    auto name = std::string(v->visible_devices_env);
    auto it =
        std::find_if(env.begin(), env.end(), [&](const EnvVar& e) { return e.first == name; });
    if (it != env.end())
      it->second = join(renumbered, ",");
    else
      env.emplace_back(name, join(renumbered, ","));
  }
  // The vendor's container environment (e.g. NVIDIA_VISIBLE_DEVICES=void, so NVIDIA's legacy
  // runtime hook adds no GPU of its own to an image built FROM nvidia/cuda).
  for (const auto& e : edits.common.env) {
    auto eq = e.find('=');
    env.emplace_back(e.substr(0, eq), e.substr(eq + 1));
  }
  if (!library_path.empty()) {
    // The caller's own LD_LIBRARY_PATH keeps its place in front.
    auto it = std::find_if(env.begin(), env.end(),
                           [](const EnvVar& e) { return e.first == "LD_LIBRARY_PATH"; });
    if (it == env.end())
      env.emplace_back("LD_LIBRARY_PATH", library_path);
    else if (!it->second.empty())
      it->second = cat({it->second, ":", library_path});
    else
      it->second = library_path;
  }
  for (const auto& [name, value] : env) a.insert(a.end(), {"-e", cat({name, "=", value})});
  // Engine arguments come last among the flags, so one that repeats a flag above would win:
  // checked against the variables just set and every vendor's device-steering variables.
  if (auto bad = check_engine_args(options.engine_args, env_anygpu_decides(registry, env)))
    return *bad;
  a.insert(a.end(), options.engine_args.begin(), options.engine_args.end());
  a.push_back(*options.image);
  a.insert(a.end(), inner_argv.begin(), inner_argv.end());
  return plan;
}

}  // namespace anygpu
