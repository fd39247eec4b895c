#include "util/regular_file.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>

#include "util/strings.h"
#include "util/unique_fd.h"

namespace anygpu {

std::string_view file_type_name(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "a special file";
  }
}

bool is_resource_error(int err) {
  return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOSPC || err == EDQUOT ||
         err == EROFS;
}

namespace {

// "the X" for messages; `what` may carry its article already ("the accelerator config").
std::string the(std::string_view what) {
  return what.starts_with("the ") ? std::string(what) : cat({"the ", what});
}

std::string resource_hint(int err) {
  switch (err) {
    case EMFILE: {
      struct rlimit rl {};
      std::string limit = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                              ? std::to_string(rl.rlim_cur)
                              : std::string("?");
      return cat({"this process is out of file descriptors (limit ", limit,
                  "; raise it with ulimit -n or LimitNOFILE=)"});
    }
    case ENFILE:
      return "the system is out of file descriptors (fs.file-max)";
    case ENOMEM:
      return "out of memory";
    case ENOSPC:
      return "no space left on the file system";
    case EDQUOT:
      return "the disk quota is exhausted";
    case EROFS:
      return "the file system is mounted read-only";
    default:
      return std::strerror(err);
  }
}

// Lock-free: the C ABI's callers fork, and a lock held by another thread at the fork would
// stay held in the child.
std::atomic<uint64_t> g_unexpected_files{0};
std::atomic<const std::string*> g_first_unexpected{nullptr};  // set once, never freed

// Keeps the first of a kind of message.
void keep_first(std::atomic<const std::string*>& slot, std::string_view text) {
  if (slot.load(std::memory_order_acquire)) return;
  try {
    const std::string* expected = nullptr;
    auto* mine = new std::string(text);
    if (!slot.compare_exchange_strong(expected, mine)) delete mine;
  } catch (const std::bad_alloc&) {  // out of memory may be what is being counted
  }
}

std::atomic<uint64_t> g_resource_errors{0};
std::atomic<int> g_latest_errno{0};
std::atomic<const std::string*> g_first_path{nullptr};  // set once, never freed

void count_resource_error(std::string_view path, int err) {
  g_latest_errno.store(err, std::memory_order_relaxed);
  keep_first(g_first_path, path);
  g_resource_errors.fetch_add(1, std::memory_order_release);
}

}  // namespace

Error unexpected_file_type(std::string_view path, unsigned mode) {
  Error e = internal_error(cat({path, ": is ", file_type_name(mode), ", not a regular file"}));
  keep_first(g_first_unexpected, e.message);
  g_unexpected_files.fetch_add(1, std::memory_order_release);
  return e;
}

uint64_t unexpected_file_count() {
  return g_unexpected_files.load(std::memory_order_acquire);
}

std::string unexpected_file_summary() {
  const std::string* first = g_first_unexpected.load(std::memory_order_acquire);
  return first ? *first : std::string("a file is not a regular file");
}

uint64_t resource_error_count() {
  return g_resource_errors.load(std::memory_order_acquire);
}

std::string resource_error_summary() {
  int err = g_latest_errno.load(std::memory_order_relaxed);
  const std::string* first = g_first_path.load(std::memory_order_acquire);
  return cat({err ? resource_hint(err) : std::string("a resource ran out"),
              first ? cat({" (first at ", *first, ")"}) : std::string()});
}

Error system_error(std::string_view path, std::string_view doing, int err, ErrorKind otherwise) {
  Error e;
  if (is_resource_error(err)) {
    e = host_error(cat({path, ": ", doing, ": ", resource_hint(err)}));
    count_resource_error(path, err);
  } else {
    e = Error{otherwise, cat({path, ": ", doing, ": ", std::strerror(err)})};
  }
  e.sys_errno = err;
  return e;
}

Result<std::string> read_open_file(int fd, const std::string& path, size_t max_bytes) {
  std::string text;
  text.resize(max_bytes);
  size_t have = 0;
  while (have < max_bytes) {
    ssize_t n = ::read(fd, text.data() + have, max_bytes - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return system_error(path, "read error", errno);
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  text.resize(have);
  return text;
}

Result<UniqueFd> open_regular_at(int dir_fd, const std::string& name, const std::string& path,
                                 std::string_view what, int extra_flags, struct stat* st_out) {
  struct stat judged {};
  {
    UniqueFd probe(::openat(dir_fd, name.c_str(), O_PATH | O_CLOEXEC | extra_flags));
    if (!probe) {
      int err = errno;
      if (err != ENOENT) return system_error(path, cat({"cannot open ", the(what)}), err);
      Error e = bad_input(cat({path, ": no such file (", what, ")"}));
      e.sys_errno = err;
      return e;
    }
    if (::fstat(probe.get(), &judged) != 0) return system_error(path, "cannot stat", errno);
  }
  if (!S_ISREG(judged.st_mode))
    return bad_input(cat(
        {path, ": is ", file_type_name(judged.st_mode), ", not a regular file (", the(what), ")"}));
  // O_NONBLOCK: should the name now be a FIFO after all, the open does not wait for a writer.
  UniqueFd fd(
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra_flags));
  if (!fd) return system_error(path, cat({"cannot open ", the(what)}), errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return system_error(path, "cannot stat", errno);
  if (st.st_dev != judged.st_dev || st.st_ino != judged.st_ino || !S_ISREG(st.st_mode))
    return bad_input(cat({path, ": replaced while it was being opened (", the(what), ")"}));
  if (st_out) *st_out = st;
  return fd;
}

Result<std::string> read_regular_file(const std::string& path, size_t max_bytes,
                                      std::string_view what) {
  if (path.empty()) return bad_input(cat({"an empty path was given for the ", what}));
  auto fd = open_regular_at(AT_FDCWD, path, path, what, 0);
  if (!fd) return fd.error();
  return read_open_file(fd->get(), path, max_bytes);
}

}  // namespace anygpu
