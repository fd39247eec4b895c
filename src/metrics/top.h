// `anygpu top`: a live terminal view of every device, from the background collector. The
// host is probed once; the collector and the process pane share that inventory. When stdout
// is not a terminal it prints plain-text snapshots instead.
#pragma once

#include <functional>

#include "host/host_root.h"
#include "model/inventory.h"
#include "model/library_facts.h"
#include "util/diagnostics.h"
#include "util/result.h"

namespace anygpu {

// The vendor libraries' process lists (NVML's running compute processes: memory per process on
// NVIDIA, holders /proc does not show), as worker::read_library_health reads them. Passed in
// because that client lives in health/, beside metrics/ rather than below it.
using LibraryHealthReader =
    std::function<health::LibraryHealth(const HostRoot& host, const Inventory& inventory)>;

struct TopOptions {
  HostOptions host;
  double interval_seconds = 1.0;
  int iterations = 0;                  // 0: until q or a signal
  bool processes = true;               // the pane of processes holding the devices
  LibraryHealthReader library_health;  // for the pane; none: /proc alone
  DiagnosticsSink report;              // discovery's diagnostics, once, before the first frame
};

// Draws until q, SIGINT, SIGTERM, SIGHUP or `iterations` frames; the exit code, or why the
// collector could not start.
Result<int> run_top(const TopOptions& options);

}  // namespace anygpu
