// Ending a child together with everything it started. A process group alone is not enough: a
// descendant may have moved to a group or session of its own (setsid, a daemonising helper,
// torch's elastic workers), so the tree of parent links in /proc is followed as well. What
// neither reaches is a descendant orphaned before it was seen: the kernel has handed it to
// init, or to the nearest subreaper (`anygpu run` is one when it stays the launch's parent).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace anygpu {

// The fields of /proc/PID/stat that identify a process and place it in the tree.
struct ProcStat {
  pid_t pid = 0;
  char state = '?';  // R S D Z T t X I …
  pid_t ppid = 0;
  pid_t pgid = 0;
  uint64_t start = 0;  // clock ticks after boot: with the pid, names one process for good
};

// Parses one /proc/PID/stat line ("123 (comm) S 1 123 …"); the command name may hold spaces
// and parentheses, so the fields are read after its last ')'. Nothing for malformed text.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// The live processes (zombies left out) that descend from `root` through parent links, or
// belong to process group `pgid` (0: none), with their own descendants; never the caller.
std::vector<ProcStat> process_tree(pid_t root, pid_t pgid);

// Ends `root`, the group `pgid` and every descendant. `root` is the caller itself (whose
// descendants end, not it) or its child not yet reaped, whose pid therefore cannot be reused.
// All are found and stopped first (SIGSTOP: none can fork, or die and orphan its children,
// while the tree is read), then get SIGTERM and SIGCONT and up to `grace` to exit; survivors
// are stopped again and killed. Returns once all have exited, or a second after the kill (a
// process stuck in the kernel). Reaps nothing: the caller waits for its own children.
void end_process_tree(pid_t root, pid_t pgid, std::chrono::milliseconds grace);

}  // namespace anygpu
