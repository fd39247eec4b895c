#include "gather/readers.h"

#include "cdi/cdi.h"
#include "cluster/core_map.h"
#include "doctor/doctor.h"
#include "doctor/host_paths.h"
#include "health/health.h"
#include "host/paths.h"
#include "metrics/backend.h"
#include "probe/probe.h"

namespace anygpu::gather {

namespace {

constexpr uid_t kUnprivileged = 65534;  // nobody: owns no node and is in no node's group

// What a reader consults only for some users or environments, copied whenever present so the
// bundle replays for whoever runs it: the group names doctor gives a user outside a node's
// group, the CDI spec directories (runtimes read them too), the loader cache, the kernel log
// (listed as not copied when unreadable, instead of silently missing).
std::vector<std::string> always_gathered() {
  std::vector<std::string> out = {std::string(doctor_paths::kEtcGroup),
                                  std::string(doctor_paths::kLdSoCache), std::string(paths::kKmsg),
                                  std::string(paths::kUptime)};
  for (auto dir : kCdiSpecDirs) out.emplace_back(dir);
  return out;
}

// Doctor's checks judge a process (user, groups, environment) as well as the host: run them for
// root and for a user who may open nothing, so the reads of both branches are recorded. The
// environment is empty: LD_LIBRARY_PATH and the Python framework belong to whoever replays.
void run_doctor_as_each(const HostRoot& host, const Inventory& inventory) {
  for (uid_t uid : {uid_t{0}, kUnprivileged}) {
    DoctorContext ctx{host, inventory};
    ctx.uid = uid;
    ctx.gids = {static_cast<gid_t>(uid)};
    (void)run_doctor(ctx, /*framework=*/false);
  }
}

}  // namespace

std::vector<std::string_view> reader_names() {
  return {"detect", "metrics", "health", "doctor", "slurm gres"};
}

Reads record_reads(const HostRoot& host) {
  HostOptions opts = host.options();
  opts.load_libraries = false;
  HostRoot recorded(opts);
  AccessLog log;
  recorded.set_access_log(&log);
  Reads reads;
  reads.inventory = probe(recorded);
  const auto& inventory = reads.inventory;
  for (const auto& backend : make_backends(recorded, inventory, Registry::builtin()))
    (void)backend->sample();
  (void)health::evaluate_health(recorded, inventory, {});
  (void)recorded.read_value(paths::kUptime);  // read by `health --since` only
  run_doctor_as_each(recorded, inventory);
  (void)read_core_map(recorded);
  for (auto& p : always_gathered()) log.add(std::move(p));
  reads.paths = log.paths();
  return reads;
}

}  // namespace anygpu::gather
