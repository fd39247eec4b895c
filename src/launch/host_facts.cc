#include "launch/host_facts.h"

#include <unistd.h>

#include "cdi/cdi.h"
#include "cdi/cdi_defects.h"
#include "launch/container_plan.h"
#include "launch/torchrun_plan.h"
#include "pyenv/python_env.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

std::optional<std::string> find_on_path(const std::string& name, const Environment& environment) {
  auto it = environment.find("PATH");
  std::string path = it == environment.end() ? "/usr/local/bin:/usr/bin:/bin" : it->second;
  for (auto dir : split(path, ':')) {
    std::string candidate = cat({dir.empty() ? "." : dir, "/", name});
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

bool torchrun_needs_std_workaround(const std::string& torchrun_path,
                                   std::vector<std::string>& notes) {
  // Only a regular file: a FIFO named torchrun on PATH would block an ifstream forever.
  auto head = read_regular_file(torchrun_path, 4096, "torchrun script");
  if (!head) return false;
  std::string first(first_line(*head));
  if (!first.starts_with("#!")) return false;
  auto words = split(trim(std::string_view(first).substr(2)), ' ');
  if (words.empty()) return false;
  std::string interpreter(words.front());
  if (interpreter.ends_with("/env") && words.size() > 1) interpreter = std::string(words[1]);
  return python_needs_std_workaround(interpreter, notes);
}

bool python_needs_std_workaround(const std::string& interpreter, std::vector<std::string>& notes) {
  auto env = read_python_env(interpreter, std::chrono::seconds(10));
  if (!env || !env->torch) return false;
  auto major = parse_int(split(env->torch->version, '.').front());
  std::optional<int64_t> py_minor;
  for (const auto& p : env->sys_path) {
    auto at = p.find("/python3.");
    if (at == std::string::npos) continue;
    auto rest = std::string_view(p).substr(at + 9);
    auto end = rest.find_first_not_of("0123456789");
    py_minor = parse_int(rest.substr(0, end));
    if (py_minor) break;
  }
  bool needed = major && *major < 2 && py_minor && *py_minor >= 11;
  if (needed)
    notes.push_back(
        cat({"torchrun: torch ", env->torch->version, " on Python 3.", std::to_string(*py_minor),
             " needs --redirects 1 --tee 1 (its default 0 crashes)"}));
  return needed;
}

namespace {

// A partition's node the host lacks (MIG cap nodes exist only once nvidia-smi or
// nvidia-modprobe made them, F-6): without it the container cannot use the partition. (DRM
// nodes follow the registry's container.drm rule, which may leave a card node out on purpose.)
void note_absent_partition_nodes(const HostRoot& host, const Selection& selection,
                                 std::vector<std::string>& notes) {
  for (size_t i = 0; i < selection.devices.size(); ++i) {
    const auto* p = selection.partition_of(i);
    if (!p) continue;
    for (const auto& node : p->device_nodes)
      if (!node.starts_with("/dev/dri/") && !host.exists(node))
        notes.push_back(cat({"warning: ", node, " of partition ", p->id,
                             " is absent on this host: the container cannot use the partition",
                             node.find("nvidia-caps") != std::string::npos
                                 ? " (nvidia-smi or nvidia-modprobe creates MIG capability nodes)"
                                 : ""}));
  }
}

}  // namespace

HostFacts gather_host_facts(const HostRoot& host, const Selection& selection,
                            const LaunchOptions& options, const Environment& environment,
                            std::vector<std::string>& notes, const Registry& registry) {
  HostFacts f;
  if (!host.is_real_root()) {
    f.root_prefix = host.outside("/");
    while (f.root_prefix.size() > 1 && f.root_prefix.back() == '/') f.root_prefix.pop_back();
  }
  if (options.nproc_per_node && !options.image) {
    if (auto interpreter = torchrun_interpreter(options.command)) {
      auto path = interpreter->find('/') == std::string::npos
                      ? find_on_path(*interpreter, environment)
                      : interpreter;
      if (path) f.torchrun_needs_std_workaround = python_needs_std_workaround(*path, notes);
    } else if (auto t = find_on_path("torchrun", environment)) {
      f.torchrun_needs_std_workaround = torchrun_needs_std_workaround(*t, notes);
    }
  }
  if (!options.image) return f;

  for (const auto* e : {"podman", "docker"})
    if (find_on_path(e, environment)) f.engines_on_path.emplace_back(e);
  char buf[4096];
  if (getcwd(buf, sizeof buf)) f.cwd = buf;
  note_absent_partition_nodes(host, selection, notes);
  if (!selection.devices.empty()) {
    auto edits = container_edits(host, selection.vendor, selection.devices, registry);
    if (edits)
      f.edits = std::move(*edits);
    else
      notes.push_back(cat({"warning: ", edits.error().message, ": passing no device"}));
  }
  if (!selection.devices.empty()) {
    auto specs = read_cdi_specs(host);
    if (!specs) {
      notes.push_back(cat(
          {"warning: CDI specs unreadable (", specs.error().message, "): passing device nodes"}));
    } else {
      // A spec doctor reports as broken here (nodes or mounts gone, another driver version)
      // is not used: the container gets the nodes explicitly, with a warning naming why.
      CdiSpecJudge judge(host, loaded_driver_of(selection.devices), registry);
      auto defects = [&](const CdiSpec& s) { return judge.defects(s).reasons(); };
      auto choice = choose_cdi_names(*specs, f.edits, registry, defects);
      f.cdi_names = std::move(choice.names);
      for (auto& w : choice.warnings) notes.push_back(cat({"warning: ", w}));
    }
  }
  return f;
}

}  // namespace anygpu
