// The watcher of `run --debug-hangs`: while anygpu supervises torchrun, it reads the ranks'
// beats (launch/hang_beats.h) every tick; once a rank has not beaten for the threshold (while
// others did, or all stalled), it has every rank of the launch dump its Python stacks, writes
// hang-report.txt and hang-report.json into the hang directory and says so on stderr. Once per
// launch: the job is left running (a slow step may yet finish; the user or the backend's own
// timeout decides).
#pragma once

#include <cstdint>
#include <string>

#include "launch/plan.h"

namespace anygpu {

// The hang directory made ready before launch: created (with parents) when missing, made
// absolute, and refused (bad_input naming the path) when it is not a directory anygpu can write,
// or already holds the beats of another launch.
Result<std::string> prepare_hang_dir(const std::string& dir);

// ./anygpu-hangs/<UTC time>-<pid>: one directory per launch under the working directory.
std::string default_hang_dir(const std::string& cwd);

class HangWatch {
 public:
  explicit HangWatch(HangDebug debug) : debug_(std::move(debug)) {}
  // One look at the beats; acts at most once per launch.
  void tick();

 private:
  HangDebug debug_;
  bool reported_ = false;
};

}  // namespace anygpu
