#include "worker/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "util/strings.h"
#include "worker/message.h"

extern char** environ;

namespace anygpu::worker {

namespace {

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

// A descriptor moved to 4 or above, so the child's dup2 onto 0..3 never meets itself.
int high_fd(int fd) {
  if (fd < 0 || fd > 3) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 4);
  ::close(fd);
  return moved;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Workers that would not die within a second of SIGKILL (stuck in the kernel): reaped at a
// later spawn instead of blocking the caller or costing a thread.
std::mutex g_unreaped_mu;
std::vector<pid_t> g_unreaped;

void reap_leftovers() {
  std::lock_guard lock(g_unreaped_mu);
  std::erase_if(g_unreaped, [](pid_t p) {
    int st = 0;
    pid_t r = ::waitpid(p, &st, WNOHANG);
    return r == p || (r < 0 && errno == ECHILD);
  });
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGSYS:
      return "SIGSYS";
    default:
      return nullptr;
  }
}

}  // namespace

std::string describe(const Exit& e) {
  switch (e.kind) {
    case Exit::Kind::exited:
      return "exited with code " + std::to_string(e.value);
    case Exit::Kind::signaled: {
      const char* name = signal_name(e.value);
      return cat({"killed by ", name ? name : "signal", " (signal ", std::to_string(e.value), ")"});
    }
    case Exit::Kind::unknown:
      break;
  }
  return "ended (exit status unknown)";
}

std::string excerpt_of(std::string_view raw) {
  std::string out;
  for (char c : raw) {
    if (c == '\n' || out.size() >= 120) break;
    out += (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) ? c : '?';
  }
  return std::string(trim(out));
}

Result<std::unique_ptr<Process>> Process::spawn(const std::string& executable,
                                                std::string_view mode) {
  reap_leftovers();
  std::unique_ptr<Process> p(new Process());
  int request[2], reply[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, request) != 0)
    return internal_error(cat({"worker: socketpair: ", std::strerror(errno)}));
  p->to_worker_ = high_fd(request[0]);
  int child_in = high_fd(request[1]);
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    ::close(child_in);
    return internal_error(cat({"worker: pipe: ", std::strerror(errno)}));
  }
  p->from_worker_ = high_fd(reply[0]);
  int child_out = high_fd(reply[1]);
  p->output_ = high_fd(::memfd_create("anygpu-worker-output", MFD_CLOEXEC));
  if (p->to_worker_ < 0 || child_in < 0 || p->from_worker_ < 0 || child_out < 0 || p->output_ < 0) {
    if (child_in >= 0) ::close(child_in);
    if (child_out >= 0) ::close(child_out);
    return internal_error(cat({"worker: cannot set up descriptors: ", std::strerror(errno)}));
  }

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, child_in, 0);
  posix_spawn_file_actions_adddup2(&fa, p->output_, 1);
  posix_spawn_file_actions_adddup2(&fa, p->output_, 2);
  posix_spawn_file_actions_adddup2(&fa, child_out, 3);
  posix_spawn_file_actions_addclosefrom_np(&fa, 4);  // whatever the host process left open
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &none);  // the exporter blocks SIGINT/SIGTERM in threads
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout kills all it started
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string mode_arg(mode);
  std::string parent = std::to_string(::getpid());
  char* argv[] = {const_cast<char*>(executable.c_str()), const_cast<char*>("__worker"),
                  mode_arg.data(), parent.data(), nullptr};
  int rc = ::posix_spawn(&p->pid_, executable.c_str(), &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(child_in);
  ::close(child_out);
  if (rc != 0) {
    p->pid_ = -1;
    return host_error(
        cat({"cannot start the library worker ", executable, ": ", std::strerror(rc)}));
  }
  p->pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, p->pid_, 0));
  return p;
}

Process::~Process() {
  if (pid_ > 0 && !reaped_) kill();
  close_fd(to_worker_);
  close_fd(from_worker_);
  close_fd(output_);
  close_fd(pidfd_);
}

bool Process::send(std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    if (to_worker_ < 0) return false;
    pollfd pfd{to_worker_, POLLOUT, 0};
    int n = ::poll(&pfd, 1, ms_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    ssize_t w = ::send(to_worker_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (w <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

void Process::close_input() {
  if (to_worker_ >= 0) ::shutdown(to_worker_, SHUT_WR);
}

ReadEnd Process::read_until(std::string& buffer, Clock::time_point deadline,
                            const std::function<bool(std::string_view)>& complete) {
  char chunk[16384];
  for (;;) {
    if (complete(buffer)) return ReadEnd::complete;
    if (buffer.size() > kMaxMessage) return ReadEnd::overflow;
    pollfd pfd{from_worker_, POLLIN, 0};
    int n = ::poll(&pfd, 1, ms_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadEnd::deadline;
    ssize_t r = ::read(from_worker_, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ReadEnd::eof;
    buffer.append(chunk, static_cast<size_t>(r));
  }
}

Exit Process::wait(Clock::time_point deadline) {
  if (reaped_ || pid_ <= 0) return exit_;
  for (bool killed = false;;) {
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      if (WIFEXITED(st)) exit_ = {Exit::Kind::exited, WEXITSTATUS(st)};
      if (WIFSIGNALED(st)) exit_ = {Exit::Kind::signaled, WTERMSIG(st)};
      return exit_;
    }
    if (r < 0 && errno != EINTR) {  // ECHILD: the host process reaps children itself
      reaped_ = true;
      return exit_;
    }
    if (Clock::now() >= deadline) {
      if (killed) {  // stuck in the kernel: reaped later, never waited for here
        std::lock_guard lock(g_unreaped_mu);
        g_unreaped.push_back(pid_);
        reaped_ = true;
        return exit_;
      }
      ::kill(-pid_, SIGKILL);
      killed = true;
      deadline = Clock::now() + std::chrono::seconds(1);
    }
    if (pidfd_ >= 0) {
      pollfd pfd{pidfd_, POLLIN, 0};
      ::poll(&pfd, 1, std::min(ms_until(deadline), 1000));
    } else {
      ::usleep(2000);
    }
  }
}

void Process::kill() {
  if (pid_ <= 0 || reaped_) return;
  ::kill(-pid_, SIGKILL);
  wait(Clock::now() + std::chrono::seconds(1));
}

std::string Process::output_excerpt() const {
  if (output_ < 0) return {};
  char buf[512];
  ssize_t n = ::pread(output_, buf, sizeof buf, 0);
  return n > 0 ? excerpt_of(std::string_view(buf, static_cast<size_t>(n))) : std::string();
}

Failure classify(ReadEnd end, const Exit& exit, std::chrono::milliseconds timeout,
                 const std::optional<std::string>& protocol_error, const std::string& excerpt) {
  Failure f;
  f.exit = exit;
  // A worker killed at the deadline left a partial reply: that is the timeout's doing.
  if (end == ReadEnd::deadline) {
    f.status = LibraryStatus::timeout;
    f.message = "did not answer within " + std::to_string(timeout.count()) + " ms; worker killed";
  } else if (protocol_error) {
    f.status = LibraryStatus::protocol_error;
    f.message = "bad message from the library worker: " + *protocol_error;
  } else if (end == ReadEnd::overflow) {
    f.status = LibraryStatus::protocol_error;
    f.message = "the library worker's reply exceeds " + std::to_string(kMaxMessage) + " bytes";
  } else if (exit.kind == Exit::Kind::signaled) {
    f.status = LibraryStatus::crashed;
    f.message = "the library worker was " + describe(exit);
  } else {
    f.status = LibraryStatus::exited;
    f.message = "the library worker " + describe(exit) + " before answering";
  }
  if (!excerpt.empty()) f.message += "; it printed: " + excerpt;
  return f;
}

}  // namespace anygpu::worker
