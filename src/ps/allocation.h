// Which GPUs a job was allocated, as a process of the job can tell: Slurm puts the job's GPUs in
// every task's environment (SLURM_JOB_GPUS, gres.conf line indices), readable by root in
// /proc/PID/environ. The exporter compares them with the devices the job's processes hold.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/host_root.h"

namespace anygpu::ps {

// The value of `key` in a /proc/PID/environ text (NUL-separated KEY=VALUE entries, as execve
// passed them; the first entry of that name wins, as getenv finds it). Entries without '=' are
// skipped.
std::optional<std::string_view> environ_value(std::string_view environ, std::string_view key);

// SLURM_JOB_GPUS of an environ text: gres.conf GPU line indices ("0,1", ranges "0-3" too),
// sorted and unique. Absent when the variable is missing or not a list of indices up to 8191
// (an allocation that cannot be read is unknown, never "no GPUs").
std::optional<std::vector<int>> slurm_job_gpus(std::string_view environ);

// The same from /proc/PID/environ beneath the root; absent when it cannot be read (another
// user's process when not root, a process that ended).
std::optional<std::vector<int>> read_slurm_job_gpus(const HostRoot& host, int pid);

}  // namespace anygpu::ps
