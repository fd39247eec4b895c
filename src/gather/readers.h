// What a gathered tree must hold: every path the commands that read the host read, found by
// running them once against the host with an access log — not by a list kept beside them, so a
// reader that starts reading a new file needs no change here to have it gathered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"

namespace anygpu::gather {

struct Reads {
  Inventory inventory;             // discovery's answer (vendor libraries off)
  std::vector<std::string> paths;  // host paths read, listed, resolved or tested; sorted
};

// The commands run, for the manifest: detect (discovery), metrics (one sysfs sample), health,
// doctor (as root and as an unprivileged user in no group, so every branch that reads for one
// of them runs) and slurm gres (CPU topology). Vendor libraries are never loaded.
std::vector<std::string_view> reader_names();

Reads record_reads(const HostRoot& host);

}  // namespace anygpu::gather
