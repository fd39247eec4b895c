#include "ps/allocation.h"

#include "host/paths.h"
#include "util/cpulist.h"
#include "util/strings.h"

namespace anygpu::ps {

namespace {

constexpr std::string_view kSlurmJobGpus = "SLURM_JOB_GPUS";
// The kernel's ARG_MAX-era bound is larger, but an environment past this is not a job's.
constexpr size_t kMaxEnvironBytes = size_t{1} << 20;

}  // namespace

std::optional<std::string_view> environ_value(std::string_view environ, std::string_view key) {
  while (!environ.empty()) {
    auto end = environ.find('\0');
    auto entry = environ.substr(0, end);
    environ = end == std::string_view::npos ? std::string_view{} : environ.substr(end + 1);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    if (entry.substr(0, eq) == key) return entry.substr(eq + 1);
  }
  return std::nullopt;
}

std::optional<std::vector<int>> slurm_job_gpus(std::string_view environ) {
  auto value = environ_value(environ, kSlurmJobGpus);
  if (!value || trim(*value).empty()) return std::nullopt;
  // The kernel's cpulist syntax and bound (8191): sorted, unique.
  auto list = parse_cpulist(trim(*value));
  if (!list || list->empty()) return std::nullopt;
  return std::move(*list);
}

std::optional<std::vector<int>> read_slurm_job_gpus(const HostRoot& host, int pid) {
  auto text = host.read_file(cat({paths::kProcfsPrefix, std::to_string(pid), "/environ"}),
                             kMaxEnvironBytes);
  if (!text) return std::nullopt;
  return slurm_job_gpus(*text);
}

}  // namespace anygpu::ps
