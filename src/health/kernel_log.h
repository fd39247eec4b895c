// Where `health` reads the kernel log: /dev/kmsg (beneath --root, a captured copy in the same
// record format), else, on the running host, syslog(2)'s SYSLOG_ACTION_READ_ALL. Both give the
// same ring buffer; syslog(2) is reachable where /dev/kmsg is not: a container's /dev has no
// kmsg, and its device cgroup refuses a bind-mounted one whatever its capabilities, while
// syslog(2) needs only CAP_SYSLOG (with kernel.dmesg_restrict=1).
#pragma once

#include <optional>
#include <string>

#include "health/kmsg.h"
#include "health/report.h"
#include "host/host_root.h"

namespace anygpu::health {

struct KernelLogRead {
  std::optional<KmsgLog> log;   // when it was read
  int untimed = 0;              // syslog(2) records without a time (printk.time off)
  std::string evidence_prefix;  // "/dev/kmsg #" or "syslog(2) line ": names a record's number
  SourceReading reading;        // the kernel-log source: how it was read, or why it was not
  std::optional<Error> error;   // why /dev/kmsg (and syslog(2)) could not be read
};

KernelLogRead read_kernel_log(const HostRoot& host, size_t max_bytes);

}  // namespace anygpu::health
