#include "launch/supervise.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "host/process_tree.h"
#include "host/spawn.h"
#include "util/exit_codes.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// What a batch system or a user sends a job: Slurm's --signal=USR1@60 asks a training script
// to checkpoint before the time limit, so the user signals go through as well.
constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP};

bool ignored(int sig) {
  struct sigaction sa {};
  return ::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

int start_failure(const SupervisedCommand& c, const Error& e) {
  switch (e.sys_errno) {
    case ENOENT:
      return report_not_started(c.argv.front(), "command not found", kExitNotFound);
    case ENOEXEC:
      return report_not_started(c.argv.front(), "not executable (no #! line; anygpu runs no shell)",
                                kExitNotExecutable);
    case EACCES:
    case EPERM:
    case EISDIR:
      return report_not_started(c.argv.front(), std::strerror(e.sys_errno), kExitNotExecutable);
    default:
      return report_not_started("run", e.message, kExitRunFailed);
  }
}

class Supervisor {
 public:
  Supervisor(pid_t pid, bool interactive, const SupervisedCommand& command)
      : pid_(pid), interactive_(interactive), command_(command) {}

  // Until the command has ended; forwards signals and follows its stops meanwhile.
  ExitStatus run(const sigset_t& waited) {
    while (!ended_) {
      int sig = next_signal(waited);
      if (sig == SIGCHLD) {
        reap();
      } else if (sig == SIGCONT) {
        resume();
      } else if (sig > 0) {
        ::kill(-pid_, sig);
      }
    }
    return exit_;
  }

  // The next signal; with a tick, at most tick_every later (-1: none came). on_tick runs once
  // tick_every has passed, also while signals keep coming (a launch's many SIGCHLDs).
  int next_signal(const sigset_t& waited) {
    siginfo_t info{};
    if (!command_.on_tick) return ::sigwaitinfo(&waited, &info);
    auto ms = command_.tick_every.count();
    timespec every{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000};
    int sig = ::sigtimedwait(&waited, &info, &every);
    auto now = std::chrono::steady_clock::now();
    if (now - last_tick_ >= command_.tick_every) {
      last_tick_ = now;
      command_.on_tick();
    }
    return sig;
  }

  void give_terminal_back() const {
    if (interactive_ && ::tcgetpgrp(0) == pid_) ::tcsetpgrp(0, ::getpgrp());
  }

 private:
  // Every child that ended: the command, or an orphan of the launch reparented to anygpu.
  void reap() {
    for (;;) {
      int st = 0;
      pid_t r = ::waitpid(-1, &st, WNOHANG | WUNTRACED);
      if (r <= 0) return;
      if (r != pid_) continue;
      if (WIFSTOPPED(st)) {
        stopped();
      } else {
        exit_ = exit_status_of(st);
        ended_ = true;
      }
    }
  }

  // The command stopped (^Z went to its group, which has the terminal): so does anygpu, so
  // that the shell sees its job stop. Only at a terminal: a batch job's anygpu stopped by a
  // signal sent to the workers alone would never be continued.
  void stopped() {
    if (!interactive_) return;
    give_terminal_back();
    ::kill(::getpid(), SIGSTOP);
  }

  // anygpu continued (fg or bg): the command continues, with the terminal when anygpu has it.
  void resume() {
    if (interactive_ && ::tcgetpgrp(0) == ::getpgrp()) ::tcsetpgrp(0, pid_);
    ::kill(-pid_, SIGCONT);
  }

  pid_t pid_;
  bool interactive_;
  const SupervisedCommand& command_;
  bool ended_ = false;
  std::chrono::steady_clock::time_point last_tick_ = std::chrono::steady_clock::now();
  ExitStatus exit_;
};

// Ends with the command's signal, as a shell expects of a wrapper (bash stops a script whose
// child died of SIGINT). No core file of anygpu's own: the command's is the one that counts.
int exit_like(const ExitStatus& e) {
  if (e.kind == ExitStatus::Kind::exited) return e.value;
  if (e.kind != ExitStatus::Kind::signaled) return kExitRunFailed;
  int sig = e.value;
  std::fflush(stdout);
  std::fflush(stderr);
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);
  return 128 + sig;
}

}  // namespace

int supervise(const SupervisedCommand& command) {
  if (command.argv.empty()) return report_not_started("run", "empty command", kExitRunFailed);
  // Signals anygpu handles by waiting for them: blocked here, at their old state in the child.
  sigset_t waited, original;
  sigemptyset(&waited);
  for (int sig : kForwarded)
    if (!ignored(sig)) sigaddset(&waited, sig);
  for (int sig : {SIGCHLD, SIGCONT, SIGTTOU}) sigaddset(&waited, sig);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &dfl, nullptr);  // an inherited SIG_IGN would reap the child unseen
  ::pthread_sigmask(SIG_BLOCK, &waited, &original);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);

  SpawnSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.search_path = command.search_path;
  spec.fds = {{0, ChildFd::inherit()}, {1, ChildFd::inherit()}, {2, ChildFd::inherit()}};
  spec.keep_inherited_fds = true;  // as execve would leave them
  spec.keep_ignored_signals = true;
  spec.signal_mask = original;
  spec.parent_death_signal = SIGTERM;
  const bool interactive = ::isatty(0) && ::tcgetpgrp(0) == ::getpgrp();
  spec.take_terminal = interactive;
  auto child = Child::spawn(spec);
  if (!child) {
    ::pthread_sigmask(SIG_SETMASK, &original, nullptr);
    return start_failure(command, child.error());
  }
  Supervisor supervisor(child->detach(), interactive, command);
  ExitStatus exit = supervisor.run(waited);
  supervisor.give_terminal_back();
  // Whatever the launch left behind: every process of it is a descendant of anygpu now.
  end_process_tree(::getpid(), 0, command.grace);
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  if (command.caller_continues) {
    ::pthread_sigmask(SIG_SETMASK, &original, nullptr);
    if (exit.kind == ExitStatus::Kind::exited) return exit.value;
    return exit.kind == ExitStatus::Kind::signaled ? 128 + exit.value : kExitRunFailed;
  }
  return exit_like(exit);
}

int report_not_started(const std::string& what, const std::string& why, int code) {
  std::fprintf(stderr, "anygpu: %s: %s\n", escape_control(what).c_str(), why.c_str());
  return code;
}

}  // namespace anygpu
