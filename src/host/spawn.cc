// Child::spawn: the parent prepares every byte the child needs (argv, envp, the paths to try,
// the descriptor moves), blocks all signals, and clones with CLONE_VM | CLONE_VFORK onto a
// stack of its own. The child, until execve, calls only async-signal-safe system calls on that
// prepared data and reports a failure through it; the parent resumes once the child has
// executed or exited.
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "host/spawn.h"
#include "util/strings.h"

extern char** environ;

namespace anygpu {

namespace {

constexpr size_t kChildStack = size_t{256} << 10;

// The child's code runs on the parent's memory before execve: no sanitizer bookkeeping there
// (ASan would unpoison the parent's stack at the child's _exit).
#define ANYGPU_CHILD_CODE __attribute__((no_sanitize("address", "undefined")))

// What the child reads (prepared by the parent) and writes (err, failed_at, stage).
struct ChildPlan {
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* const* candidates = nullptr;  // paths to execve, in order
  size_t n_candidates = 0;
  const int* from = nullptr;  // source descriptor of each move
  const int* to = nullptr;    // its number in the child
  int* high = nullptr;        // scratch: the sources moved above every target
  size_t n_moves = 0;
  const int* gaps = nullptr;  // numbers up to the highest target that no move fills
  size_t n_gaps = 0;
  int top = 2;  // the highest target
  bool close_others = true;
  bool own_group = true;
  bool take_terminal = false;
  bool keep_ignored = false;
  int death_signal = 0;
  pid_t parent = 0;
  sigset_t mask{};
  // Written by the child on failure.
  int err = 0;
  int failed_at = -1;  // candidate index for an execve failure
  const char* stage = nullptr;
};

[[noreturn]] ANYGPU_CHILD_CODE void child_fail(ChildPlan& p, const char* stage) {
  p.err = errno;
  p.stage = stage;
  ::_exit(127);
}

ANYGPU_CHILD_CODE void reset_signals(const ChildPlan& p) {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction sa {};
    if (::sigaction(sig, nullptr, &sa) != 0) continue;  // glibc's own signals
    if (sa.sa_handler == SIG_DFL || (sa.sa_handler == SIG_IGN && p.keep_ignored)) continue;
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);
  }
}

ANYGPU_CHILD_CODE void close_above(int first) {
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0) == 0) return;
  rlimit lim{};  // before Linux 5.9
  rlim_t end = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur : 1024;
  for (rlim_t fd = static_cast<rlim_t>(first); fd < end && fd < INT_MAX; ++fd)
    ::close(static_cast<int>(fd));
}

ANYGPU_CHILD_CODE void place_descriptors(ChildPlan& p) {
  // Every source first goes above the targets, so no dup2 overwrites a later source.
  for (size_t i = 0; i < p.n_moves; ++i) {
    p.high[i] = ::fcntl(p.from[i], F_DUPFD_CLOEXEC, p.top + 1);
    if (p.high[i] < 0) child_fail(p, "descriptor");
  }
  for (size_t i = 0; i < p.n_moves; ++i)
    if (::dup2(p.high[i], p.to[i]) < 0) child_fail(p, "dup2");
  if (!p.close_others) return;  // the moved copies are close-on-exec
  for (size_t i = 0; i < p.n_gaps; ++i) ::close(p.gaps[i]);
  close_above(p.top + 1);
}

ANYGPU_CHILD_CODE int child_main(void* arg) {
  auto& p = *static_cast<ChildPlan*>(arg);
  reset_signals(p);
  if (p.own_group && ::setpgid(0, 0) != 0) child_fail(p, "setpgid");
  // All signals are still blocked, so taking the terminal raises no SIGTTOU.
  if (p.take_terminal) ::tcsetpgrp(0, ::getpid());
  if (p.death_signal) {
    if (::prctl(PR_SET_PDEATHSIG, p.death_signal) != 0) child_fail(p, "prctl");
    if (::getppid() != p.parent) ::_exit(127);  // the parent died before the prctl
  }
  place_descriptors(p);
  ::sigprocmask(SIG_SETMASK, &p.mask, nullptr);
  // As execvp searches: a file not there, the next directory; one there but not executable
  // is remembered (a later one may be); any other failure ends the search.
  int err = ENOENT, at = -1;
  for (size_t i = 0; i < p.n_candidates; ++i) {
    ::execve(p.candidates[i], p.argv, p.envp);
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) continue;
    bool denied = e == EACCES || e == EPERM || e == ENOEXEC || e == EISDIR;
    if (at < 0 || !denied) {
      err = e;
      at = static_cast<int>(i);
    }
    if (!denied) break;
  }
  p.err = err;
  p.failed_at = at;
  p.stage = "exec";
  ::_exit(127);
}

std::vector<std::string> exec_candidates(const SpawnSpec& spec) {
  if (!spec.program.empty()) return {spec.program};
  const std::string& name = spec.argv.front();
  if (name.find('/') != std::string::npos) return {name};
  std::string path;
  if (spec.search_path) {
    path = *spec.search_path;
  } else {
    const char* env = std::getenv("PATH");
    path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  }
  std::vector<std::string> out;
  for (auto dir : split(path, ':')) out.push_back(cat({dir.empty() ? "." : dir, "/", name}));
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// EMFILE and the like, told as what they are.
Error setup_error(std::string_view what, int err) {
  Error e = internal_error(cat({"spawn: ", what, ": ", std::strerror(err)}));
  e.sys_errno = err;
  return e;
}

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) >= 0;
}

// The parent's half: descriptors to move, pipes whose read ends the Child keeps.
struct Descriptors {
  std::vector<int> from, to, high, gaps;
  std::vector<UniqueFd> held;  // /dev/null and the pipes' write ends: closed after the spawn
  std::vector<std::pair<int, UniqueFd>> captures;
  int devnull = -1;
  int top = 2;  // the highest target
};

Result<bool> plan_descriptors(const SpawnSpec& spec, Descriptors& d) {
  std::map<int, ChildFd> plan = spec.fds;
  for (int std_fd : {0, 1, 2}) plan.try_emplace(std_fd, ChildFd::null_device());
  auto null_fd = [&]() {
    if (d.devnull < 0) {
      d.held.emplace_back(::open("/dev/null", O_RDWR | O_CLOEXEC));
      d.devnull = d.held.back().get();
    }
    return d.devnull;
  };
  for (const auto& [target, source] : plan) {
    if (target < 0) return bad_input("spawn: negative descriptor number");
    int from = -1;
    switch (source.kind) {
      case ChildFd::Kind::null_device:
        from = null_fd();
        break;
      case ChildFd::Kind::inherit:
        // A closed standard descriptor would be taken by the child's first open file.
        from = is_open(target) ? target : (target <= 2 ? null_fd() : -1);
        break;
      case ChildFd::Kind::parent_fd:
        from = source.fd;
        break;
      case ChildFd::Kind::capture: {
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0) return setup_error("pipe", errno);
        ::fcntl(p[0], F_SETFL, O_NONBLOCK);
        d.captures.emplace_back(target, UniqueFd(p[0]));
        d.held.emplace_back(p[1]);
        from = p[1];
        break;
      }
    }
    if (from < 0 && source.kind != ChildFd::Kind::inherit)
      return setup_error(cat({"descriptor ", std::to_string(target)}), errno);
    if (from < 0) continue;  // inherit of a closed descriptor: closed in the child as well
    d.from.push_back(from);
    d.to.push_back(target);
  }
  d.top = std::max(2, plan.rbegin()->first);
  for (int fd = 0; fd <= d.top; ++fd)
    if (std::find(d.to.begin(), d.to.end(), fd) == d.to.end()) d.gaps.push_back(fd);
  d.high.resize(d.from.size());
  return true;
}

// The strings of the spec the child reads, kept alive by the parent until the child has executed.
struct ExecStrings {
  std::vector<std::string> args, env, candidates;
  std::vector<char*> argv, envp;
  std::vector<const char*> candidate_ptrs;

  explicit ExecStrings(const SpawnSpec& spec)
      : args(spec.argv),
        env(spec.env.value_or(std::vector<std::string>{})),
        candidates(exec_candidates(spec)),
        argv(pointers(args)),
        envp(pointers(env)) {
    for (const auto& c : candidates) candidate_ptrs.push_back(c.c_str());
  }
};

ChildPlan make_plan(const SpawnSpec& spec, ExecStrings& str, Descriptors& d) {
  ChildPlan plan;
  plan.argv = str.argv.data();
  plan.envp = spec.env ? str.envp.data() : environ;
  plan.candidates = str.candidate_ptrs.data();
  plan.n_candidates = str.candidate_ptrs.size();
  plan.from = d.from.data();
  plan.to = d.to.data();
  plan.high = d.high.data();
  plan.n_moves = d.from.size();
  plan.gaps = d.gaps.data();
  plan.n_gaps = d.gaps.size();
  plan.top = d.top;
  plan.close_others = !spec.keep_inherited_fds;
  plan.own_group = spec.own_group;
  plan.take_terminal = spec.take_terminal;
  plan.keep_ignored = spec.keep_ignored_signals;
  plan.death_signal = spec.parent_death_signal;
  plan.parent = ::getpid();
  if (spec.signal_mask)
    plan.mask = *spec.signal_mask;
  else
    sigemptyset(&plan.mask);
  return plan;
}

// Runs the child on a stack of its own; returns once it has executed or exited.
pid_t clone_child(ChildPlan& plan, int& clone_errno) {
  void* stack = ::mmap(nullptr, kChildStack, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (stack == MAP_FAILED) {
    clone_errno = errno;
    return -1;
  }
  // Blocked until the child has reset its handlers: none of the parent's may run in it.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = ::clone(child_main, static_cast<char*>(stack) + kChildStack,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::munmap(stack, kChildStack);
  return pid;
}

Error child_error(const ChildPlan& plan, const ExecStrings& str) {
  const bool exec = plan.stage && std::strcmp(plan.stage, "exec") == 0;
  const std::string& what = exec && plan.failed_at >= 0
                                ? str.candidates[static_cast<size_t>(plan.failed_at)]
                                : str.args.front();
  Error e = internal_error(
      exec ? cat({what, ": ", std::strerror(plan.err)})
           : cat({what, ": ", plan.stage ? plan.stage : "setup", ": ", std::strerror(plan.err)}));
  e.sys_errno = plan.err;
  return e;
}

}  // namespace

Result<Child> Child::spawn(const SpawnSpec& spec) {
  if (spec.argv.empty() || spec.argv.front().empty()) return bad_input("spawn: empty command");
  reap_parked_children();
  Descriptors d;
  if (auto planned = plan_descriptors(spec, d); !planned) return planned.error();
  ExecStrings str(spec);
  ChildPlan plan = make_plan(spec, str, d);
  int clone_errno = 0;
  pid_t pid = clone_child(plan, clone_errno);
  d.held.clear();  // the child has its copies (or is gone)
  if (pid < 0) return setup_error(cat({"clone for ", spec.argv.front()}), clone_errno);

  Child child;
  child.pid_ = pid;
  child.reaped_ = false;
  if (plan.err != 0) {  // it exited with 127 before or at execve
    child.reap(Clock::now() + std::chrono::seconds(5));
    return child_error(plan, str);
  }
  child.pgid_ = spec.own_group ? pid : 0;
  child.pidfd_ = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  for (auto& [target, fd] : d.captures)
    child.captures_.push_back({target, std::move(fd), {}, false});
  return child;
}

}  // namespace anygpu
