#include "exporter/job_allocations.h"

#include <deque>

#include "host/paths.h"
#include "ps/allocation.h"
#include "util/strings.h"

namespace anygpu::exporter {

namespace {

// Slurm's job cgroups (proctrack/cgroup, task/cgroup) live beneath paths::kCgroupV1Freezer and
// paths::kCgroupV2SystemSlice; slurm.schedmd.com/cgroup_v2.html, cgroups.html.
constexpr std::string_view kFreezer = paths::kCgroupV1Freezer;
constexpr std::string_view kSystemSlice = paths::kCgroupV2SystemSlice;
// A job's cgroup tree is steps, their user/task subgroups: a few dozen directories.
constexpr size_t kMaxJobDirs = 64;
constexpr size_t kMaxJobPids = 64;

std::vector<std::string> entries(const HostRoot& host, const std::string& dir) {
  auto list = host.list_dir(dir);
  return list ? std::move(*list) : std::vector<std::string>{};
}

bool job_dir_name(std::string_view name) {
  return name.size() > 4 && name.starts_with("job_") && parse_uint(name.substr(4)).has_value();
}

// The job directories beneath `parent`, by job id.
void add_jobs(const HostRoot& host, const std::string& parent,
              std::map<std::string, std::string>& out) {
  for (const auto& name : entries(host, parent))
    if (job_dir_name(name)) out.emplace(name.substr(4), cat({parent, "/", name}));
}

// Up to kMaxJobPids processes of one job, from cgroup.procs of its directory and those beneath.
std::vector<int> job_pids(const HostRoot& host, const std::string& job_dir) {
  std::vector<int> pids;
  std::deque<std::string> dirs{job_dir};
  for (size_t visited = 0; !dirs.empty() && visited < kMaxJobDirs; ++visited) {
    auto dir = std::move(dirs.front());
    dirs.pop_front();
    if (auto procs = host.read_file(cat({dir, "/cgroup.procs"}))) {
      for (auto line : split(*procs, '\n'))
        if (auto pid = parse_uint(trim(line)); pid && *pid > 0 && pids.size() < kMaxJobPids)
          pids.push_back(static_cast<int>(*pid));
    }
    for (const auto& name : entries(host, dir))
      if (host.is_dir(cat({dir, "/", name}))) dirs.push_back(cat({dir, "/", name}));
  }
  return pids;
}

}  // namespace

std::map<std::string, std::vector<int>> slurm_job_pids(const HostRoot& host) {
  std::map<std::string, std::string> jobs;  // id -> cgroup directory
  for (const auto& slurm : entries(host, std::string(kFreezer)))
    if (slurm.starts_with("slurm"))
      for (const auto& uid : entries(host, cat({kFreezer, "/", slurm})))
        if (uid.starts_with("uid_")) add_jobs(host, cat({kFreezer, "/", slurm, "/", uid}), jobs);
  for (const auto& scope : entries(host, std::string(kSystemSlice)))
    if (scope.ends_with("slurmstepd.scope")) add_jobs(host, cat({kSystemSlice, "/", scope}), jobs);
  std::map<std::string, std::vector<int>> out;
  for (const auto& [id, dir] : jobs) out.emplace(id, job_pids(host, dir));
  return out;
}

SlurmAllocations::SlurmAllocations(std::vector<std::string> gres_order)
    : gres_order_(std::move(gres_order)) {}

const std::optional<std::vector<int>>& SlurmAllocations::gpus_of(
    const HostRoot& host, int pid, std::map<int, std::optional<std::vector<int>>>& seen) {
  if (auto it = seen.find(pid); it != seen.end()) return it->second;
  auto cached = by_pid_.find(pid);
  return seen[pid] = cached != by_pid_.end() ? cached->second : ps::read_slurm_job_gpus(host, pid);
}

void SlurmAllocations::add(JobAllocations& out, const std::string& job,
                           const std::vector<int>& gpus) const {
  auto& devices = out[{"slurm", job}];
  for (int index : gpus)
    if (static_cast<size_t>(index) < gres_order_.size())
      devices.insert(gres_order_[static_cast<size_t>(index)]);
}

JobAllocations SlurmAllocations::read(const HostRoot& host, const ps::ProcessScan& scan) {
  JobAllocations out;
  std::map<int, std::optional<std::vector<int>>> seen;
  for (const auto& p : scan.processes) {
    if (!p.attribution.slurm) continue;
    if (const auto& gpus = gpus_of(host, p.pid, seen)) add(out, p.attribution.slurm->job_id, *gpus);
  }
  // Jobs none of whose processes holds a device: found by their cgroups, their allocation read
  // from the first of their processes that carries one (slurmstepd itself does not).
  for (const auto& [job, pids] : slurm_job_pids(host)) {
    if (out.contains({"slurm", job})) continue;
    for (int pid : pids)
      if (const auto& gpus = gpus_of(host, pid, seen)) {
        add(out, job, *gpus);
        break;
      }
  }
  by_pid_ = std::move(seen);  // pids gone from the scan are forgotten
  return out;
}

}  // namespace anygpu::exporter
