// The parent's side of discovery through a worker: one session per vendor, all started at
// once and finished against one deadline, so vendors' libraries run side by side and a hung or
// crashing one costs only its own facts.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "probe/libs/library_probe.h"
#include "util/diagnostics.h"
#include "worker/process.h"

namespace anygpu::worker {

class ProbeSession {
 public:
  // `libraries`: one vendor's, in registry order.
  ProbeSession(const HostRoot& host, std::vector<LibraryRequest> libraries);
  ProbeSession(ProbeSession&&) noexcept;
  ~ProbeSession();

  // Spawns the worker for whatever cannot be settled without loading.
  void start();
  // Collects the answers by `deadline`; a library whose worker failed gets the failure as its
  // status (timeout, crashed, exited, protocol-error) and the ones after it get a new worker.
  // Every problem is also a warning in `warnings`.
  std::vector<LibraryResult> finish(Clock::time_point deadline, Diagnostics& warnings);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace anygpu::worker
