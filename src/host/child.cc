// The Child handle: collecting captured output, waiting against a deadline, ending the tree.
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <thread>

#include "host/process_tree.h"
#include "host/spawn.h"
#include "util/strings.h"

namespace anygpu {

namespace {

using Clock = Child::Clock;

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Children that did not die within a second of SIGKILL (stuck in the kernel): reaped at a
// later spawn instead of blocking the caller or costing a thread.
std::mutex g_unreaped_mu;
std::vector<pid_t> g_unreaped;

void park(pid_t pid) {
  std::lock_guard lock(g_unreaped_mu);
  g_unreaped.push_back(pid);
}

}  // namespace

void reap_parked_children() {
  std::lock_guard lock(g_unreaped_mu);
  std::erase_if(g_unreaped, [](pid_t p) {
    int st = 0;
    pid_t r = ::waitpid(p, &st, WNOHANG);
    return r == p || (r < 0 && errno == ECHILD);
  });
}

ExitStatus exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return {ExitStatus::Kind::exited, WEXITSTATUS(wait_status)};
  if (WIFSIGNALED(wait_status)) return {ExitStatus::Kind::signaled, WTERMSIG(wait_status)};
  return {};
}

std::string describe(const ExitStatus& e) {
  switch (e.kind) {
    case ExitStatus::Kind::exited:
      return "exited with code " + std::to_string(e.value);
    case ExitStatus::Kind::signaled: {
      const char* abbrev = ::sigabbrev_np(e.value);  // "SEGV"
      std::string name = abbrev ? cat({"SIG", abbrev}) : std::string("signal");
      return cat({"killed by ", name, " (signal ", std::to_string(e.value), ")"});
    }
    case ExitStatus::Kind::unknown:
      break;
  }
  return "ended (exit status unknown)";
}

Child::Child(Child&& o) noexcept {
  *this = std::move(o);
}

Child& Child::operator=(Child&& o) noexcept {
  if (this != &o) {
    end_if_running();
    pid_ = std::exchange(o.pid_, -1);
    pgid_ = std::exchange(o.pgid_, 0);
    pidfd_ = std::move(o.pidfd_);
    reaped_ = std::exchange(o.reaped_, true);
    timed_out_ = o.timed_out_;
    exit_ = o.exit_;
    captures_ = std::move(o.captures_);
  }
  return *this;
}

Child::~Child() {
  end_if_running();
}

void Child::end_if_running() {
  if (pid_ > 0 && !reaped_) terminate(std::chrono::milliseconds(0));
}

pid_t Child::detach() {
  reaped_ = true;
  return pid_;
}

Child::State Child::state() {
  if (reaped_) return State::gone;
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0)
      return info.si_pid == pid_ ? State::exited : State::running;
    if (errno == EINTR) continue;
    reaped_ = true;  // ECHILD: the host process reaps its children itself (SIGCHLD ignored)
    return State::gone;
  }
}

void Child::reap(Clock::time_point limit) {
  while (!reaped_) {
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      exit_ = exit_status_of(st);
      reaped_ = true;
    } else if (r < 0 && errno != EINTR) {
      reaped_ = true;
    } else if (r == 0 && Clock::now() >= limit) {
      park(pid_);  // stuck in the kernel: reaped later, never waited for here
      reaped_ = true;
    } else if (r == 0) {
      pollfd p{pidfd_.get(), POLLIN, 0};
      if (!pidfd_ || ::poll(&p, 1, std::min(ms_until(limit), 100)) < 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
}

bool Child::drain(Capture& c, size_t max_bytes) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(c.fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    if (n == 0) return false;
    size_t room = max_bytes - std::min(max_bytes, c.data.size());
    c.data.append(buf, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) c.truncated = true;
  }
}

bool Child::collect(Clock::time_point deadline, size_t max_bytes) {
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Capture*> open;
    for (auto& c : captures_)
      if (c.fd) {
        fds.push_back({c.fd.get(), POLLIN, 0});
        open.push_back(&c);
      }
    if (open.empty()) return true;
    if (state() != State::running) {  // take what is there; a descendant may hold the pipe
      for (auto* c : open)
        if (!drain(*c, max_bytes)) c->fd.reset();
      return true;
    }
    int wait_ms = ms_until(deadline);
    if (wait_ms == 0) return false;
    if (pidfd_) fds.push_back({pidfd_.get(), POLLIN, 0});
    int n = ::poll(fds.data(), fds.size(), pidfd_ ? wait_ms : std::min(wait_ms, 20));
    if (n < 0 && errno != EINTR) return false;
    for (size_t i = 0; n > 0 && i < open.size(); ++i)
      if (fds[i].revents && !drain(*open[i], max_bytes)) open[i]->fd.reset();
  }
}

std::string Child::output(int child_fd) const {
  for (const auto& c : captures_)
    if (c.child_fd == child_fd) return c.data;
  return {};
}

bool Child::truncated(int child_fd) const {
  for (const auto& c : captures_)
    if (c.child_fd == child_fd) return c.truncated;
  return false;
}

ExitStatus Child::wait(Clock::time_point deadline, std::chrono::milliseconds grace) {
  for (;;) {
    auto s = state();
    if (s == State::gone) return exit_;
    if (s == State::exited) break;
    if (Clock::now() >= deadline) {
      timed_out_ = true;
      return terminate(grace);
    }
    pollfd p{pidfd_.get(), POLLIN, 0};
    if (!pidfd_ || ::poll(&p, 1, std::min(ms_until(deadline), 1000)) < 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Exited but not reaped, so its pid (and group id) still names it: whatever is left in its
  // group goes with it.
  if (pgid_ > 0) ::kill(-pgid_, SIGKILL);
  reap(Clock::now() + std::chrono::seconds(1));
  return exit_;
}

ExitStatus Child::terminate(std::chrono::milliseconds grace) {
  if (reaped_ || pid_ <= 0) return exit_;
  end_process_tree(pid_, pgid_, grace);  // waits up to a second for a SIGKILLed one
  reap(Clock::now());
  return exit_;
}

Result<Completed> run_to_completion(const SpawnSpec& spec, std::chrono::milliseconds timeout,
                                    size_t max_output, std::chrono::milliseconds grace) {
  auto deadline = Clock::now() + timeout;
  auto child = Child::spawn(spec);
  if (!child) return child.error();
  child->collect(deadline, max_output);
  Completed done;
  done.exit = child->wait(deadline, grace);
  done.timed_out = child->timed_out();
  for (const auto& [fd, source] : spec.fds) {
    if (source.kind != ChildFd::Kind::capture) continue;
    done.output[fd] = child->output(fd);
    done.truncated = done.truncated || child->truncated(fd);
  }
  return done;
}

}  // namespace anygpu
