#include "worker/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"
#include "worker/message.h"

namespace anygpu::worker {

namespace {

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

Error setup_error(std::string_view what) {
  return internal_error(cat({"worker: ", what, ": ", std::strerror(errno)}));
}

}  // namespace

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
  std::unique_ptr<Process> p(new Process());
  int request[2], reply[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, request) != 0)
    return setup_error("socketpair");
  p->to_worker_ = UniqueFd(request[0]);
  UniqueFd child_in(request[1]);
  if (::pipe2(reply, O_CLOEXEC) != 0) return setup_error("pipe");
  p->from_worker_ = UniqueFd(reply[0]);
  UniqueFd child_out(reply[1]);
  p->output_ = UniqueFd(::memfd_create("anygpu-worker-output", MFD_CLOEXEC));
  if (!p->output_) return setup_error("memfd_create");

  SpawnSpec spec;
  spec.program = executable;
  spec.argv = {executable, "__worker", std::string(mode), std::to_string(::getpid())};
  spec.fds = {{0, ChildFd::from(child_in.get())},
              {1, ChildFd::from(p->output_.get())},
              {2, ChildFd::from(p->output_.get())},
              {3, ChildFd::from(child_out.get())}};
  // Every signal at its default, nothing blocked: the exporter blocks SIGINT/SIGTERM in its
  // threads. The worker sets its own parent-death signal where that fits its lifetime.
  auto child = Child::spawn(spec);
  if (!child)
    return host_error(cat({"cannot start the library worker ", executable, ": ",
                           std::strerror(child.error().sys_errno)}));
  p->child_ = std::move(*child);
  return p;
}

Process::~Process() = default;  // child_ goes first: killed and reaped before its pipes close

bool Process::send(std::string_view bytes, Clock::time_point deadline) {
  while (!bytes.empty()) {
    if (!to_worker_) return false;
    pollfd pfd{to_worker_.get(), POLLOUT, 0};
    int n = ::poll(&pfd, 1, ms_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    ssize_t w = ::send(to_worker_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (w <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

void Process::close_input() {
  if (to_worker_) ::shutdown(to_worker_.get(), SHUT_WR);
}

ReadEnd Process::read_until(std::string& buffer, Clock::time_point deadline,
                            const std::function<bool(std::string_view)>& complete) {
  char chunk[16384];
  for (;;) {
    if (complete(buffer)) return ReadEnd::complete;
    if (buffer.size() > kMaxMessage) return ReadEnd::overflow;
    pollfd pfd{from_worker_.get(), POLLIN, 0};
    int n = ::poll(&pfd, 1, ms_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadEnd::deadline;
    ssize_t r = ::read(from_worker_.get(), chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ReadEnd::eof;
    buffer.append(chunk, static_cast<size_t>(r));
  }
}

Exit Process::wait(Clock::time_point deadline) {
  return child_.wait(deadline, std::chrono::milliseconds(0));
}

void Process::kill() {
  child_.terminate(std::chrono::milliseconds(0));
}

std::string Process::output_excerpt() const {
  if (!output_) return {};
  char buf[512];
  ssize_t n = ::pread(output_.get(), buf, sizeof buf, 0);
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
