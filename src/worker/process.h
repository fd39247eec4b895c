// One worker process, started by the spawn helper (host/spawn.h: no fork of a threaded
// parent), in its own process group, with
//   fd 0  the request pipe (parent -> worker)
//   fd 1  and fd 2: a memory file the parent can read, so whatever a vendor library prints
//         never reaches anygpu's stdout or stderr
//   fd 3  the reply pipe (worker -> parent), the only channel the parent parses
// and nothing else open. The parent owns every deadline: on timeout the worker's group and
// descendants are killed with SIGKILL (no grace: a worker holds nothing worth saving) and it is
// reaped; the destructor does the same, so no worker outlives its owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "host/spawn.h"
#include "model/library_status.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu::worker {

using Clock = std::chrono::steady_clock;

// How a worker ended (describe() names it: "killed by SIGSEGV (signal 11)").
using Exit = ExitStatus;

enum class ReadEnd { complete, eof, deadline, overflow };

class Process {
 public:
  // `mode` is the worker's argv[2] ("probe" or "sample").
  static Result<std::unique_ptr<Process>> spawn(const std::string& executable,
                                                std::string_view mode);
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  // Writes all of `bytes` to the worker's fd 0 by `deadline`; false if it cannot.
  bool send(std::string_view bytes, Clock::time_point deadline);
  void close_input();
  // Appends what the worker writes on fd 3 to `buffer` until `complete(buffer)` holds, the
  // worker closes fd 3, `deadline` passes, or the buffer would exceed the message limit.
  ReadEnd read_until(std::string& buffer, Clock::time_point deadline,
                     const std::function<bool(std::string_view)>& complete);
  // Reaps the worker, killing its group first if it has not exited by `deadline`.
  Exit wait(Clock::time_point deadline);
  void kill();  // SIGKILL to the whole group, then reap
  // The first bytes the worker wrote to fd 1/2 (printable, one line), for messages.
  std::string output_excerpt() const;
  pid_t pid() const { return child_.pid(); }

 private:
  Process() = default;
  UniqueFd to_worker_, from_worker_, output_;
  Child child_;
};

// Where libraries' status comes from when a worker failed: the reply stopped because of
// `end`, and the process ended as `exit`.
struct Failure {
  LibraryStatus status = LibraryStatus::crashed;  // crashed, exited, timeout, protocol_error
  std::string message;                            // what happened, with signal or code
  Exit exit;
};
Failure classify(ReadEnd end, const Exit& exit, std::chrono::milliseconds timeout,
                 const std::optional<std::string>& protocol_error, const std::string& excerpt);

// Text a library printed, made safe for a message: the first line, printable, at most 120
// bytes.
std::string excerpt_of(std::string_view raw);

}  // namespace anygpu::worker
