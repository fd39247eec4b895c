// Who a process belongs to, from /proc/PID/cgroup ("ID:CONTROLLERS:PATH" lines): the
// container runtime and id (Docker, Podman, containerd, CRI-O), the Kubernetes pod uid, and
// the Slurm job and step — for the systemd and cgroupfs drivers, cgroup v1 and v2.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace anygpu::ps {

struct Attribution {
  struct Container {
    std::string runtime, id;
  };
  struct Slurm {
    std::string job_id;
    std::optional<std::string> step;  // "0", "batch", "extern"
  };
  std::optional<Container> container;
  std::optional<std::string> pod_uid;
  std::optional<Slurm> slurm;
};

Attribution parse_cgroup(std::string_view text);
// One cgroup path ("/kubepods.slice/…/cri-containerd-<id>.scope").
Attribution attribute_cgroup_path(std::string_view path);

}  // namespace anygpu::ps
