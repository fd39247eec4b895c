// Kernel log records in the /dev/kmsg format (Documentation/ABI/testing/dev-kmsg):
//   "PRIO,SEQ,TIMESTAMP_US,FLAGS[,…];MESSAGE\n" then dictionary lines " KEY=VALUE\n"
// (SUBSYSTEM=pci, DEVICE=+pci:0000:c1:00.0 for dev_printk messages). The kernel escapes
// unprintable bytes in MESSAGE as \xNN, so a record never spans lines but for its dictionary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace anygpu::health {

struct KmsgRecord {
  int priority = 0;  // syslog priority (the low three bits of PRIO)
  uint64_t sequence = 0;
  uint64_t timestamp_us = 0;  // CLOCK_MONOTONIC microseconds since boot
  std::string message;
  std::optional<std::string> device;  // PCI bus id from DEVICE=+pci:… or the dev_printk prefix
  std::optional<std::string> driver;  // the dev_printk prefix's driver ("amdgpu", "i915", "xe")
};

struct KmsgLog {
  std::vector<KmsgRecord> records;
  int malformed = 0;  // records that did not parse (skipped)
};

KmsgLog parse_kmsg(std::string_view text);

// The same records as syslog(2) SYSLOG_ACTION_READ_ALL gives them (kernel/printk/printk.c,
// info_print_prefix): one line each, "<PRI>", then "[SSSSS.UUUUUU]" when printk.time is on and
// "[  T123]" right after it with CONFIG_PRINTK_CALLER, a space after either, then the message;
// a multi-line message repeats the prefix on every line. There is no sequence number (the
// line's number stands in) and no dictionary (the dev_printk prefix still names the device). A
// line without a time has timestamp 0 and is counted in `untimed`.
struct SyslogLog : KmsgLog {
  int untimed = 0;
};
SyslogLog parse_syslog_text(std::string_view text);

// NVIDIA's "NVRM: Xid (PCI:0000:18:00): 79, pid=…, …" and NVSwitch "SXid (PCI:…): 12028, …".
struct XidEvent {
  bool switch_event = false;  // SXid
  int number = 0;
  std::string bus;     // "0000:18:00" as the driver prints it (no function for Xid)
  std::string detail;  // the text after the number
};
std::optional<XidEvent> parse_xid(std::string_view message);

}  // namespace anygpu::health
