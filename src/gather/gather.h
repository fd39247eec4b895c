// `anygpu gather DIR`: copies exactly what discovery reads (files, directory layout, symlinks;
// device nodes as empty files) into a tree that `--root DIR` replays, like
// hwloc-gather-topology. Vendor libraries are not copied.
#pragma once

#include <string>

#include "host/host_root.h"
#include "util/result.h"

namespace anygpu {

struct GatherSummary {
  size_t files = 0, links = 0, dirs = 0;
};

// Fails if `dest` exists and is not an empty directory. Built in a temporary sibling and
// renamed into place, so an interrupted gather leaves nothing half-written behind.
Result<GatherSummary> gather_host(const HostRoot& host, const std::string& dest);

}  // namespace anygpu
