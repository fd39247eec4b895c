#include "host/host_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/env_vars.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// The dynamic loader's default directories on Debian/Ubuntu (multiarch), RHEL and others.
constexpr std::string_view kStandardLibraryDirs[] = {
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/usr/lib/aarch64-linux-gnu",
    "/lib/aarch64-linux-gnu",
#endif
    "/usr/lib64",
    "/lib64",
    "/usr/lib",
    "/lib",
    "/usr/local/lib",
};

Error errno_error(std::string_view path) {
  int e = errno;
  // Out of descriptors or memory is said as such (exit 3), never as "absent" or "denied".
  if (is_resource_error(e)) return system_error(path, "cannot read", e);
  Error err = internal_error(cat({path, ": ", std::strerror(e)}));
  err.sys_errno = e;
  return err;
}

// "/proc/self/fd/N" names the file an O_PATH descriptor refers to.
std::optional<std::string> fd_path(int fd) {
  char link[64], buf[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = ::readlink(link, buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

// Canonical and absolute, so resolved paths can be checked to stay beneath it.
std::string normalize_root(std::string root) {
  char buf[PATH_MAX];
  if (::realpath(root.c_str(), buf)) root = buf;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root == "/" ? std::string() : root;
}

}  // namespace

Result<HostOptions> HostOptions::from_environment() {
  // The table's parsers (util/env_vars): the CLI, the C ABI and Python refuse alike.
  HostOptions o;
  auto root = read_env("ANYGPU_ROOT");
  if (!root) return root.error();
  if (*root) o.root = (*root)->text;
  auto no_libs = read_env("ANYGPU_NO_LIBS");
  if (!no_libs) return no_libs.error();
  if (*no_libs) o.load_libraries = !*(*no_libs)->flag;
  auto timeout = read_env("ANYGPU_LIB_TIMEOUT_MS");
  if (!timeout) return timeout.error();
  if (*timeout) o.library_timeout = std::chrono::milliseconds(*(*timeout)->number);
  return o;
}

void AccessLog::add(std::string path) {
  std::lock_guard lock(mu_);
  paths_.insert(std::move(path));
}

std::vector<std::string> AccessLog::paths() const {
  std::lock_guard lock(mu_);
  return {paths_.begin(), paths_.end()};
}

HostRoot::HostRoot(HostOptions options)
    : options_(std::move(options)), prefix_(normalize_root(options_.root)) {
  if (prefix_.empty()) return;
  UniqueFd fd(::open(prefix_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (fd) root_fd_ = std::make_shared<const UniqueFd>(std::move(fd));
}

UniqueFd HostRoot::open_at_root(std::string_view path, int flags) const {
  if (prefix_.empty()) return UniqueFd(::open(std::string(path).c_str(), flags | O_CLOEXEC));
  if (!root_fd_) {
    errno = ENOENT;
    return UniqueFd();
  }
  // Built once, not trimmed in place: assigning "." to a string g++ 12 sees may alias it
  // trips -O3 -Wrestrict (GCC bug 105651).
  size_t start = path.find_first_not_of('/');
  std::string rel =
      start == std::string_view::npos ? std::string(".") : std::string(path.substr(start));
  static std::atomic<bool> have_openat2{true};
  if (have_openat2.load(std::memory_order_relaxed)) {
    struct open_how how {};
    how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    long fd = -1;
    // A rename anywhere on the system while ".." is resolved makes a scoped lookup fail with
    // EAGAIN ("retry"); sysfs paths are full of "..", and other processes rename files.
    for (int attempt = 0; attempt < 64; ++attempt) {
      fd = ::syscall(SYS_openat2, root_fd_->get(), rel.c_str(), &how, sizeof how);
      if (fd >= 0 || errno != EAGAIN) break;
    }
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return UniqueFd(static_cast<int>(fd));
    have_openat2 = false;  // kernel before 5.6, or a seccomp filter that does not know it
  }
  // Fallback: follow links as the kernel does, then refuse anything that left the root.
  UniqueFd fd(::openat(root_fd_->get(), rel.c_str(), flags | O_CLOEXEC));
  if (!fd) return fd;
  auto real = fd_path(fd.get());
  if (!real || (*real != prefix_ && real->compare(0, prefix_.size() + 1, prefix_ + "/") != 0)) {
    fd.reset();
    errno = EXDEV;
  }
  return fd;
}

std::string HostRoot::outside(std::string_view host_path) const {
  return cat({prefix_, host_path});
}

void HostRoot::note(std::string_view path) const {
  if (log_) log_->add(std::string(path));
}

Result<std::string> HostRoot::read_file(std::string_view path, size_t max_bytes) const {
  auto fd = open_at_root(path, O_RDONLY | O_NONBLOCK);
  if (!fd) return errno_error(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && !S_ISREG(st.st_mode))
    return unexpected_file_type(path, st.st_mode);
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error(path);
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      return internal_error(cat({path, ": larger than ", std::to_string(max_bytes), " bytes"}));
    out.append(buf, static_cast<size_t>(n));
  }
  note(path);
  return out;
}

Result<std::string> HostRoot::read_log(std::string_view path, size_t max_bytes) const {
  auto fd = open_at_root(path, O_RDONLY | O_NONBLOCK);
  if (!fd) return errno_error(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))
    return internal_error(cat({path, ": neither a regular file nor a log device"}));
  std::string out;
  // /dev/kmsg hands out one record per read() and refuses buffers shorter than the record.
  std::string buf(16384, '\0');
  while (out.size() < max_bytes) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;
    if (n < 0 && errno == EAGAIN) break;  // the end of the ring buffer
    if (n < 0) return errno_error(path);
    if (n == 0) break;
    out.append(buf.data(), std::min(static_cast<size_t>(n), max_bytes - out.size()));
  }
  note(path);
  return out;
}

Result<std::string> HostRoot::read_value(std::string_view path) const {
  auto text = read_file(path, kSmallFileBytes);
  if (!text) return text.error();
  // A value followed by NUL padding ("3\n\0\0…", seen on an RX 6900 XT) is binary, not text:
  // the first line alone would hide it.
  if (text->find('\0') != std::string::npos)
    return internal_error(cat({path, ": not text (NUL bytes)"}));
  auto line = first_line(*text);
  if (line.empty()) return internal_error(cat({path, ": empty"}));
  if (!is_printable_text(line)) return internal_error(cat({path, ": not text"}));
  return std::string(line);
}

Result<std::vector<std::string>> HostRoot::list_dir(std::string_view path) const {
  auto fd = open_at_root(path, O_RDONLY | O_DIRECTORY);
  if (!fd) return errno_error(path);
  DIR* d = ::fdopendir(fd.get());
  if (!d) return errno_error(path);
  fd.release();  // the DIR owns it now
  std::vector<std::string> names;
  while (auto* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  note(path);
  return names;
}

Result<std::vector<std::pair<std::string, std::string>>> HostRoot::read_links(
    std::string_view path) const {
  std::vector<std::pair<std::string, std::string>> links;
  auto done = for_each_link(path, [&](std::string_view name, std::string_view target) {
    links.emplace_back(name, target);
  });
  if (!done) return done.error();
  std::sort(links.begin(), links.end());
  return links;
}

Result<bool> HostRoot::for_each_link(std::string_view path, LinkVisitor fn, void* context) const {
  auto fd = open_at_root(path, O_RDONLY | O_DIRECTORY);
  if (!fd) return errno_error(path);
  // getdents64 straight into a stack buffer: no DIR allocation, one call for a few hundred
  // entries.
  alignas(8) char entries[16384];
  char target[PATH_MAX];
  while (true) {
    long got = ::syscall(SYS_getdents64, fd.get(), entries, sizeof entries);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno_error(path);
    if (got == 0) break;
    for (long at = 0; at < got;) {
      const auto* e = reinterpret_cast<const struct dirent64*>(entries + at);
      at += e->d_reclen;
      if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN) continue;
      // readlinkat on the entry itself: the link is read, never followed.
      ssize_t n = ::readlinkat(fd.get(), e->d_name, target, sizeof target - 1);
      if (n < 0) continue;  // not a link, or gone (a process closing its files)
      fn(context, e->d_name, std::string_view(target, static_cast<size_t>(n)));
    }
  }
  note(path);
  return true;
}

Result<std::string> HostRoot::read_link(std::string_view path) const {
  // The link itself, not its target: resolve the parent beneath the root, then readlinkat.
  std::string p(path);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  auto slash = p.rfind('/');
  std::string parent = slash == std::string::npos || slash == 0 ? "/" : p.substr(0, slash);
  std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
  auto dir = open_at_root(parent, O_PATH | O_DIRECTORY);
  if (!dir) return errno_error(path);
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(dir.get(), name.c_str(), buf, sizeof buf - 1);
  if (n < 0) return errno_error(path);
  note(path);
  return std::string(buf, static_cast<size_t>(n));
}

Result<CheckedFile> HostRoot::open_checked(std::string_view path, std::string_view what) const {
  TrustOptions options;
  options.root = prefix_.empty() ? "/" : prefix_;
  auto file = anygpu::open_checked(path, what, options);
  if (file) note(path);
  return file;
}

Result<std::string> HostRoot::resolve(std::string_view path) const {
  auto fd = open_at_root(path, O_PATH);
  if (!fd) return errno_error(path);
  auto real = fd_path(fd.get());
  if (!real) return internal_error(cat({path, ": cannot resolve"}));
  note(path);
  if (prefix_.empty()) return *real;
  if (*real == prefix_) return std::string("/");
  if (real->compare(0, prefix_.size() + 1, prefix_ + "/") != 0)
    return bad_input(cat({path, ": resolves outside the root (", *real, ")"}));
  return real->substr(prefix_.size());
}

bool HostRoot::exists(std::string_view path) const {
  if (!open_at_root(path, O_PATH)) return false;
  note(path);
  return true;
}

bool HostRoot::is_dir(std::string_view path) const {
  return static_cast<bool>(open_at_root(path, O_PATH | O_DIRECTORY));
}

std::vector<std::string> HostRoot::library_dirs(
    std::span<const std::string_view> extra_dirs) const {
  std::vector<std::string> dirs;
  for (auto d : kStandardLibraryDirs) dirs.emplace_back(d);
  for (auto d : extra_dirs) dirs.emplace_back(d);
  return dirs;
}

std::optional<std::string> HostRoot::find_library(
    std::span<const std::string_view> sonames, std::span<const std::string_view> extra_dirs) const {
  for (auto soname : sonames)
    for (const auto& dir : library_dirs(extra_dirs)) {
      std::string p = cat({dir, "/", soname});
      if (exists(p)) return p;
    }
  return std::nullopt;
}

Result<std::shared_ptr<DynamicLibrary>> HostRoot::open_library(
    std::span<const std::string_view> sonames, std::span<const std::string_view> extra_dirs) const {
  if (!options_.load_libraries) return host_error("vendor libraries disabled (--no-libs)");
  std::string tried;
  auto attempt = [&](const std::string& name) -> std::shared_ptr<DynamicLibrary> {
    auto lib = DynamicLibrary::open(name);
    if (lib) return std::make_shared<DynamicLibrary>(std::move(*lib));
    tried += cat({tried.empty() ? "" : "; ", lib.error().message});
    return nullptr;
  };
  if (prefix_.empty())
    for (auto soname : sonames)
      if (auto lib = attempt(std::string(soname))) return lib;
  for (auto soname : sonames)
    for (const auto& dir : library_dirs(extra_dirs)) {
      std::string host_path = cat({dir, "/", soname});
      // dlopen follows links on this machine: hand it the file as resolved beneath the root.
      auto real = resolve(host_path);
      if (!real) continue;
      if (auto lib = attempt(outside(*real))) return lib;
    }
  if (tried.empty()) {
    std::vector<std::string> names(sonames.begin(), sonames.end());
    return host_error(cat({join(names, ", "), ": not found"}));
  }
  return host_error(tried);
}

}  // namespace anygpu
