// A launch anygpu stays the parent of (torchrun): the command runs as a child in its own
// process group, and anygpu
//   - forwards SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to that group (a signal
//     anygpu was started with ignored stays ignored, as execve would leave it);
//   - hands the terminal to the group when anygpu had it, and follows it when it stops (^Z)
//     and continues (fg/bg), as a shell's job;
//   - is a subreaper (PR_SET_CHILD_SUBREAPER): a process orphaned inside the launch, e.g. a
//     worker's child whose worker died, is reparented to anygpu instead of init, so it stays
//     in anygpu's tree;
//   - when the command ends, ends every process still in that tree (SIGTERM, a grace period,
//     SIGKILL) and reaps them: no descendant survives the launch;
//   - sets SIGTERM as the command's parent-death signal, so an anygpu killed outright
//     (SIGKILL, the OOM killer) still lets torchrun stop its workers;
//   - calls on_tick periodically when given (run --debug-hangs watches the ranks' beats);
//   - exits as the command did: its exit code, or the signal that ended it, raised again.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace anygpu {

struct SupervisedCommand {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=value, exactly
  std::string search_path;       // PATH that argv[0] is looked up on when it has no '/'
  // How long what is left after the command ends may take to exit before SIGKILL.
  std::chrono::milliseconds grace{3000};
  // Called about every `tick_every` while the command runs (the hang watcher); none: anygpu only
  // waits for signals.
  std::function<void()> on_tick;
  std::chrono::milliseconds tick_every{500};
  // The caller goes on once the command has ended (preflight reads what it wrote): a command
  // ended by a signal returns 128 + the signal instead of ending anygpu with it, and the
  // signal mask is restored.
  bool caller_continues = false;
};

// Runs `command` to its end as described above; returns the exit code (126/127 when it
// cannot be executed, 125 when it cannot be started, after saying why on stderr). Returns
// only if the command's signal, raised again, did not end anygpu (or caller_continues).
int supervise(const SupervisedCommand& command);

// Says on stderr why a command was not started ("anygpu: WHAT: WHY", WHAT escaped: it is a
// path or a name from the user) and returns `code`, the exit code that tells it.
int report_not_started(const std::string& what, const std::string& why, int code);

}  // namespace anygpu
