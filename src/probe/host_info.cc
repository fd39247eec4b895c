#include "probe/host_info.h"

#include <sys/utsname.h>

#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "util/cpulist.h"

namespace anygpu {

namespace {
std::optional<int> count_list(const ProbeContext& ctx, std::string_view path) {
  auto text = ctx.host.read_value(path);
  if (!text) return std::nullopt;
  auto list = parse_cpulist(*text);
  if (!list) {
    ctx.warn(path, list.error().message);
    return std::nullopt;
  }
  if (list->empty()) return std::nullopt;
  return static_cast<int>(list->size());
}
}  // namespace

HostInfo probe_host_info(const ProbeContext& ctx) {
  HostInfo h;
  const auto& host = ctx.host;
  if (auto v = host.read_value(paths::kHostname))
    h.hostname = *v;
  else if (auto e = host.read_value(paths::kEtcHostname))
    h.hostname = *e;
  if (auto v = host.read_value(paths::kOsRelease)) h.kernel = *v;
  if (auto v = host.read_value(paths::kArch)) h.arch = *v;
  for (auto file : paths::kOsReleaseFiles) {
    auto text = host.read_file(file, kSmallFileBytes);
    if (!text) continue;
    if (auto os = parse_os_release(*text))
      h.os = *os;
    else
      ctx.warn(file, os.error().message);
    break;
  }
  // The real machine always answers uname(2); a replayed root only answers from its files.
  if (host.is_real_root() && (!h.arch || !h.kernel)) {
    struct utsname u {};
    if (::uname(&u) == 0) {
      if (!h.arch) h.arch = u.machine;
      if (!h.kernel) h.kernel = u.release;
    }
  }
  h.cpus = count_list(ctx, paths::kCpuOnline);
  h.numa_nodes = count_list(ctx, paths::kNodeOnline);
  return h;
}

}  // namespace anygpu
