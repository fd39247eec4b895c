// The one way anygpu starts a process: an argv (never a shell), an environment, a plan of the
// descriptors the child gets (every other one closed), its own process group, a deadline, and
// output captured up to a cap. At the deadline, or when its owner lets go of it, the child ends
// with its group and every descendant (host/process_tree.h); after a normal exit, whatever is
// left in its group is killed. A child's group never outlives the child.
//
// The child is made with clone(CLONE_VM | CLONE_VFORK), as posix_spawn does: no copy of a large
// or threaded parent (libanygpu runs inside PyTorch processes), and between clone and execve the
// child makes system calls only, on data the parent prepared. Unlike posix_spawn it can set a
// parent-death signal and hand the terminal to the child's group.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

// What one descriptor of the child is.
struct ChildFd {
  enum class Kind { null_device, inherit, parent_fd, capture };
  Kind kind = Kind::null_device;
  int fd = -1;  // parent_fd: the caller's descriptor

  static ChildFd null_device() { return {Kind::null_device, -1}; }
  static ChildFd inherit() { return {Kind::inherit, -1}; }  // the caller's same number
  static ChildFd from(int parent_fd) { return {Kind::parent_fd, parent_fd}; }
  static ChildFd capture() { return {Kind::capture, -1}; }  // a pipe the caller reads
};

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0] as the program sees it
  // The file executed; empty: argv[0], looked up on `search_path` when it holds no '/'. No
  // fallback to /bin/sh for a file without a #! line (ENOEXEC is an error).
  std::string program;
  std::optional<std::string> search_path;       // absent: the caller's PATH
  std::optional<std::vector<std::string>> env;  // NAME=value each; absent: the caller's
  // Child descriptors: 0, 1 and 2 are /dev/null unless named here; any other is closed unless
  // named, or unless keep_inherited_fds (what execve would leave open stays open).
  std::map<int, ChildFd> fds;
  bool keep_inherited_fds = false;
  bool own_group = true;        // setpgid(0, 0): the group the deadline kills
  bool take_terminal = false;   // own group made the foreground group of the terminal on fd 0
  int parent_death_signal = 0;  // PR_SET_PDEATHSIG; follows the calling *thread*
  // Signals start at their default action, except those the caller ignores when this is set
  // (execve's rule: `nohup` keeps SIGHUP ignored).
  bool keep_ignored_signals = false;
  std::optional<sigset_t> signal_mask;  // absent: nothing blocked
};

// How a child ended.
struct ExitStatus {
  enum class Kind { exited, signaled, unknown } kind = Kind::unknown;
  int value = 0;  // exit code or signal number

  bool success() const { return kind == Kind::exited && value == 0; }
};
ExitStatus exit_status_of(int wait_status);
std::string describe(const ExitStatus& e);  // "killed by SIGSEGV (signal 11)", "exited with code 0"

// A grace too short for a process to clean up, long enough for one that only has to exit.
inline constexpr std::chrono::milliseconds kTerminateGrace{500};

class Child {
 public:
  using Clock = std::chrono::steady_clock;

  // Errors name the program; sys_errno is the execve (or setup) errno: ENOENT not found,
  // EACCES/ENOEXEC/EISDIR not executable.
  static Result<Child> spawn(const SpawnSpec& spec);

  Child() = default;
  Child(Child&& o) noexcept;
  Child& operator=(Child&& o) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();  // a child still running ends with its tree, without grace

  pid_t pid() const { return pid_; }
  pid_t pgid() const { return pgid_; }

  // Reads the captured descriptors until each is at end of file, the child has exited and
  // nothing more is waiting, or `deadline` passes (false). Each keeps at most `max_bytes`;
  // the rest is read and dropped, so a chatty child never blocks on a full pipe.
  bool collect(Clock::time_point deadline, size_t max_bytes);
  std::string output(int child_fd) const;  // what collect() kept
  bool truncated(int child_fd) const;

  // Reaps the child. Not exited by `deadline`: its tree ends first (SIGTERM, `grace`,
  // SIGKILL), and timed_out() holds. Exited: what is left of its group is killed.
  ExitStatus wait(Clock::time_point deadline, std::chrono::milliseconds grace = kTerminateGrace);
  ExitStatus terminate(std::chrono::milliseconds grace = kTerminateGrace);
  bool timed_out() const { return timed_out_; }

  // The caller takes the child over (waits for it itself, e.g. among signals): this handle
  // neither ends nor reaps it any more. Returns its pid.
  pid_t detach();

 private:
  struct Capture {
    int child_fd;
    UniqueFd fd;  // read end, non-blocking
    std::string data;
    bool truncated = false;
  };
  enum class State { running, exited, gone };  // exited: a zombie, not yet reaped
  State state();
  void reap(Clock::time_point limit);
  bool drain(Capture& c, size_t max_bytes);  // false at end of file
  void end_if_running();

  pid_t pid_ = -1;
  pid_t pgid_ = 0;
  UniqueFd pidfd_;
  bool reaped_ = true;
  bool timed_out_ = false;
  ExitStatus exit_;
  std::vector<Capture> captures_;
};

// Reaps children whose end an earlier wait gave up on (stuck in the kernel after SIGKILL).
// Child::spawn calls it; a long-running owner may too.
void reap_parked_children();

// A child run to its end: spawned, its captures collected, ended at the deadline, reaped.
struct Completed {
  ExitStatus exit;
  bool timed_out = false;
  std::map<int, std::string> output;  // by child descriptor
  bool truncated = false;
};
Result<Completed> run_to_completion(const SpawnSpec& spec, std::chrono::milliseconds timeout,
                                    size_t max_output,
                                    std::chrono::milliseconds grace = kTerminateGrace);

}  // namespace anygpu
