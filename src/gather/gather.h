// `anygpu gather DIR`: a bug report of this host. Copies every file that detect, metrics,
// health, doctor and slurm gres read (files, directory layout, symlinks; device nodes as empty
// files) into a tree that `--root DIR` replays, like hwloc-gather-topology, with a manifest
// (DIR/anygpu-gather.json) saying how, when and what, and which files identify the host, its
// users or its devices. `redact` replaces those values. Vendor libraries are never loaded nor
// copied.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "host/host_root.h"
#include "util/result.h"

namespace anygpu {

// At the top of the tree: no host path starts there.
inline constexpr std::string_view kGatherManifest = "anygpu-gather.json";

struct GatherOptions {
  bool redact = false;
  std::string version;               // for the manifest: "anygpu 0.1.0 (…)"
  std::vector<std::string> command;  // for the manifest: argv as given
};

struct GatherPrivacy {
  std::string kind;  // "host-name", "device-ids", "mac-addresses", "user-names", "kernel-log"
  size_t files = 0;
};

struct GatherSummary {
  size_t files = 0, links = 0, dirs = 0;
  uint64_t bytes = 0;
  size_t not_copied = 0, not_followed = 0;  // files left out, links not followed (loops)
  size_t log_records = 0, log_kept = 0;     // the kernel log's records, and those in the copy
  bool redacted = false;
  std::vector<GatherPrivacy> privacy;  // what identifying data the copy holds (held before
                                       // redaction, when redacted)
};

// Fails if `dest` exists and is not an empty directory (bad_input). Built in a temporary sibling
// and renamed into place, so an interrupted gather leaves nothing half-written behind.
Result<GatherSummary> gather_host(const HostRoot& host, const std::string& dest,
                                  const GatherOptions& options = {});

}  // namespace anygpu
