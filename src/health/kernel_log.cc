#include "health/kernel_log.h"

#include <sys/klog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "health/coverage.h"
#include "host/paths.h"
#include "util/strings.h"

namespace anygpu::health {

namespace {

// klogctl(2) actions (include/linux/syslog.h; not exported to user space).
constexpr int kSyslogReadAll = 3;
constexpr int kSyslogSizeBuffer = 10;

Error syscall_error(std::string_view what) {
  int e = errno;
  Error err = internal_error(cat({what, ": ", std::strerror(e)}));
  err.sys_errno = e;
  return err;
}

// The last `max_bytes` of the ring buffer, without clearing it.
Result<std::string> read_syslog(size_t max_bytes) {
  int size = ::klogctl(kSyslogSizeBuffer, nullptr, 0);
  if (size < 0) return syscall_error("syslog(2)");
  std::string buf(std::min(static_cast<size_t>(size), max_bytes), '\0');
  int n = ::klogctl(kSyslogReadAll, buf.data(), static_cast<int>(buf.size()));
  if (n < 0) return syscall_error("syslog(2)");
  buf.resize(static_cast<size_t>(n));
  return buf;
}

bool denied(const Error& e) {
  return unread_reason(e) == "permission-denied";
}

KernelLogRead parsed(KmsgLog log, int untimed, std::string via, std::string prefix) {
  KernelLogRead out;
  out.untimed = untimed;
  // Records that all failed to parse are no reading: nothing was understood.
  if (log.records.empty() && log.malformed > 0)
    out.reading = unread_source(
        kKernelLogSource, "malformed",
        cat({via, ": ", std::to_string(log.malformed), " record(s), none in the expected format"}));
  else
    out.reading = read_source(kKernelLogSource, via);
  out.log = std::move(log);
  out.evidence_prefix = std::move(prefix);
  return out;
}

}  // namespace

KernelLogRead read_kernel_log(const HostRoot& host, size_t max_bytes) {
  std::string kmsg(paths::kKmsg);
  auto text = host.read_log(kmsg, max_bytes);
  if (text) return parsed(parse_kmsg(*text), 0, kmsg, kmsg + " #");
  Error error = text.error();
  // syslog(2) reads the running kernel: never under --root, where the log is the tree's own.
  bool fallback = host.is_real_root() && unread_reason(error) != "error";
  if (fallback) {
    auto via = read_syslog(max_bytes);
    if (via) {
      auto log = parse_syslog_text(*via);
      int untimed = log.untimed;
      return parsed(std::move(log), untimed, "syslog(2)", "syslog(2) line ");
    }
    // The fixable refusal names the reason: a missing /dev/kmsg beside a refused syslog(2) is
    // a missing capability, not a missing log.
    if (denied(via.error()) && !denied(error)) error.sys_errno = via.error().sys_errno;
    error.message += cat({"; ", via.error().message});
  }
  KernelLogRead out;
  out.reading = unread_source(kKernelLogSource, unread_reason(error), error.message);
  out.error = std::move(error);
  return out;
}

}  // namespace anygpu::health
