// The kernel log a gather carries holds every driver's records: disks, network peers, USB
// devices, audit lines naming users. `gather --redact` keeps only the records `health` could
// attribute to an accelerator, so the replay still shows the same Xid, reset and RAS events.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace anygpu::gather {

struct KernelLogSplit {
  std::string kept;  // the kept records, each with its dictionary lines, as they were
  size_t records = 0;
  size_t kept_records = 0;
};

// A record is kept when it is an NVIDIA Xid/SXid line, names one of `gpu_bus_ids` (dev_printk
// prefix or DEVICE=+pci:), was printed by a driver a registry vendor binds or a health rule
// names, carries a vendor's kernel-log marker (NVRM:, [ascend]), or comes from DRM. Records
// that do not parse are dropped.
KernelLogSplit keep_gpu_records(std::string_view log, const std::set<std::string>& gpu_bus_ids);

}  // namespace anygpu::gather
