// `ulimit -n`: data loaders, NCCL/RCCL and torch's file_descriptor sharing strategy open many
// descriptors; the common 1024 soft limit ends in "Too many open files".
#include "doctor/checks.h"
#include "util/strings.h"

namespace anygpu {

inline constexpr uint64_t kWantedOpenFiles = 65536;

std::vector<Finding> check_open_files(const DoctorContext& ctx) {
  if (!ctx.nofile_soft || *ctx.nofile_soft >= kWantedOpenFiles) return {};
  auto have = std::to_string(*ctx.nofile_soft);
  return {{"limits.nofile-low", Severity::warning, cat({"open-file limit (ulimit -n) is ", have}),
           cat({"The soft RLIMIT_NOFILE is ", have, ", below ", std::to_string(kWantedOpenFiles),
                ": DataLoader workers sharing tensors through file descriptors and collective "
                "libraries fail with `Too many open files`."}),
           "ulimit -n 65536   # this shell; persistently: `* soft nofile 65536` in "
           "/etc/security/limits.conf, LimitNOFILE=65536 in a systemd unit, or "
           "--ulimit nofile=65536:65536 for a container"}};
}

}  // namespace anygpu
