#include "ps/cgroup.h"

#include <algorithm>
#include <cctype>

#include "util/strings.h"

namespace anygpu::ps {

namespace {

bool is_hex_id(std::string_view s) {
  return s.size() >= 12 && s.size() <= 128 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit((unsigned char)c); });
}

// A pod uid as the kubelet writes it: 36 characters, '-' (cgroupfs) or '_' (systemd slices).
std::optional<std::string> pod_uid(std::string_view s) {
  if (s.size() != 36) return std::nullopt;
  std::string uid(s);
  std::replace(uid.begin(), uid.end(), '_', '-');
  for (size_t i = 0; i < uid.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? uid[i] != '-' : !std::isxdigit(static_cast<unsigned char>(uid[i])))
      return std::nullopt;
  }
  return to_lower(uid);
}

struct Scope {
  std::string_view prefix, runtime;
};
// systemd scope units: "<prefix><id>.scope".
constexpr Scope kScopes[] = {{"docker-", "docker"},
                             {"libpod-", "podman"},
                             {"cri-containerd-", "containerd"},
                             {"crio-", "cri-o"}};

void component(std::string_view c, std::string_view parent, Attribution& a) {
  // Container scopes (systemd driver).
  if (c.ends_with(".scope")) {
    auto unit = c.substr(0, c.size() - 6);
    for (const auto& s : kScopes)
      if (unit.starts_with(s.prefix) && is_hex_id(unit.substr(s.prefix.size())))
        a.container = Attribution::Container{std::string(s.runtime),
                                             std::string(unit.substr(s.prefix.size()))};
  }
  // Pod slices (systemd driver): kubepods-burstable-pod<uid>.slice, kubepods-pod<uid>.slice.
  if (c.starts_with("kubepods") && c.ends_with(".slice")) {
    auto pod = c.find("-pod");
    if (pod != std::string_view::npos)
      if (auto uid = pod_uid(c.substr(pod + 4, c.size() - 6 - pod - 4))) a.pod_uid = uid;
  }
  // cgroupfs driver: /kubepods/[burstable|besteffort/]pod<uid>/<container id>,
  // /docker/<id>, /libpod_parent/libpod-<id>.
  if (c.starts_with("pod"))
    if (auto uid = pod_uid(c.substr(3))) a.pod_uid = uid;
  if (is_hex_id(c) && c.size() == 64) {
    if (parent == "docker") a.container = Attribution::Container{"docker", std::string(c)};
    if (a.pod_uid && !a.container)
      a.container = Attribution::Container{"cri", std::string(c)};  // runtime not in the path
  }
  // Slurm: …/job_<N>/step_<S>/… (cgroup v1 /slurm/uid_U/job_N/step_S, v2 slurmstepd.scope).
  if (c.starts_with("job_") && c.size() > 4 && parse_uint(c.substr(4)))
    a.slurm = Attribution::Slurm{std::string(c.substr(4)), std::nullopt};
  if (c.starts_with("step_") && c.size() > 5 && a.slurm) a.slurm->step = std::string(c.substr(5));
}

}  // namespace

Attribution attribute_cgroup_path(std::string_view path) {
  Attribution a;
  std::string_view parent;
  for (auto c : split(path, '/')) {
    if (c.empty()) continue;
    component(c, parent, a);
    parent = c;
  }
  return a;
}

Attribution parse_cgroup(std::string_view text) {
  // cgroup v2 has one "0::PATH" line; on v1 every controller line carries the same placement,
  // so the first line that attributes anything is taken.
  Attribution best;
  for (std::string_view line : split_lines(text)) {
    auto first = line.find(':');
    if (first == std::string_view::npos) continue;
    auto second = line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    auto a = attribute_cgroup_path(line.substr(second + 1));
    if (!best.container) best.container = a.container;
    if (!best.pod_uid) best.pod_uid = a.pod_uid;
    if (!best.slurm) best.slurm = a.slurm;
  }
  return best;
}

}  // namespace anygpu::ps
