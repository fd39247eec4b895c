// One worker process: spawned with posix_spawn (no fork of a threaded parent), in its own
// process group, with
//   fd 0  the request pipe (parent -> worker)
//   fd 1  and fd 2: a memory file the parent can read, so whatever a vendor library prints
//         never reaches anygpu's stdout or stderr
//   fd 3  the reply pipe (worker -> parent), the only channel the parent parses
// and nothing else open. The parent owns every deadline: on timeout the whole group is killed
// with SIGKILL and reaped; the destructor does the same, so no worker outlives its owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/library_status.h"
#include "util/result.h"

namespace anygpu::worker {

using Clock = std::chrono::steady_clock;

// How a worker ended.
struct Exit {
  enum class Kind { exited, signaled, unknown } kind = Kind::unknown;
  int value = 0;  // exit code or signal number
};
std::string describe(const Exit& e);  // "killed by SIGSEGV (signal 11)", "exited with code 0"

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
  pid_t pid() const { return pid_; }

 private:
  Process() = default;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1, output_ = -1, pidfd_ = -1;
  bool reaped_ = false;
  Exit exit_;
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
