// HostRoot: the one door to the machine. Every read of /sys, /proc, /dev, /etc, /opt, /usr and
// every dlopen goes through it, so `--root DIR` can replay a captured or synthetic host.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/dynamic_library.h"
#include "util/file_trust.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

// Cap for the small text files discovery reads (sysfs values, /proc, version files).
inline constexpr size_t kSmallFileBytes = size_t{64} << 10;

struct HostOptions {
  std::string root = "/";                           // `--root DIR` / ANYGPU_ROOT
  bool load_libraries = true;                       // `--no-libs` / ANYGPU_NO_LIBS=1 turn this off
  std::chrono::milliseconds library_timeout{1000};  // deadline for all vendor library calls

  // Reads ANYGPU_ROOT (a directory), ANYGPU_NO_LIBS and ANYGPU_LIB_TIMEOUT_MS by the table of
  // environment variables (util/env_vars.h). A malformed value is an error.
  static Result<HostOptions> from_environment();
};

// Paths the probe touched, so `anygpu gather` can copy exactly what discovery reads.
class AccessLog {
 public:
  void add(std::string path);
  std::vector<std::string> paths() const;

 private:
  mutable std::mutex mu_;
  std::set<std::string> paths_;
};

class HostRoot {
 public:
  explicit HostRoot(HostOptions options);

  const HostOptions& options() const { return options_; }
  bool is_real_root() const { return prefix_.empty(); }
  // The path on this machine for a host path ("/sys/…" -> "<root>/sys/…").
  std::string outside(std::string_view host_path) const;

  // Whole file, at most `max_bytes` (larger is an error: sysfs values are small).
  Result<std::string> read_file(std::string_view path, size_t max_bytes = 1 << 20) const;
  // A log that may be a character device of records (/dev/kmsg) or a regular file (a captured
  // copy): read without blocking until the end of what is there, at most `max_bytes`.
  // Records the kernel overwrote while reading (EPIPE) are skipped.
  Result<std::string> read_log(std::string_view path, size_t max_bytes) const;
  // First line, trimmed; an error for a missing, unreadable, empty or binary file.
  Result<std::string> read_value(std::string_view path) const;
  // Sorted entry names without "." and "..".
  Result<std::vector<std::string>> list_dir(std::string_view path) const;
  Result<std::string> read_link(std::string_view path) const;
  // Every symlink in a directory with its target (name order), one directory open for all:
  // /proc/PID/fd holds thousands of links.
  Result<std::vector<std::pair<std::string, std::string>>> read_links(std::string_view dir) const;
  // The same links in directory order, each handed to `fn(name, target)` as it is read, with
  // no copies (the views live until `fn` returns): a scan of every process's descriptors
  // reads a hundred thousand links and keeps a handful. Safe to call from several threads.
  using LinkVisitor = void (*)(void* context, std::string_view name, std::string_view target);
  Result<bool> for_each_link(std::string_view dir, LinkVisitor fn, void* context) const;
  template <class F>
  Result<bool> for_each_link(std::string_view dir, F&& fn) const {
    return for_each_link(
        dir, [](void* c, std::string_view n, std::string_view t) { (*static_cast<F*>(c))(n, t); },
        &fn);
  }
  // A file that steers what runs as root (a CDI spec): only a regular file, opened by a walk
  // from the root that says who besides root and this user can change it or a directory above
  // it (util/file_trust.h). Errors name the path on this machine.
  Result<CheckedFile> open_checked(std::string_view path, std::string_view what) const;
  // Canonical host path with every symlink resolved beneath the root.
  Result<std::string> resolve(std::string_view path) const;
  bool exists(std::string_view path) const;
  bool is_dir(std::string_view path) const;

  // Standard library directories (prefixed by the root when one is set), then `extra_dirs`.
  std::vector<std::string> library_dirs(std::span<const std::string_view> extra_dirs) const;
  // Host path of the first existing file named like one of `sonames` in the library dirs.
  std::optional<std::string> find_library(std::span<const std::string_view> sonames,
                                          std::span<const std::string_view> extra_dirs) const;
  // dlopen the first loadable soname. At the real root the system loader's own search runs
  // first; under a root only files beneath it are considered.
  Result<std::shared_ptr<DynamicLibrary>> open_library(
      std::span<const std::string_view> sonames,
      std::span<const std::string_view> extra_dirs) const;

  void set_access_log(AccessLog* log) { log_ = log; }

 private:
  void note(std::string_view path) const;
  // Opens a host path. Under a root, symlinks (absolute ones included) and ".." resolve as if
  // the root were "/" (openat2 RESOLVE_IN_ROOT), so nothing beneath the root can reach out.
  UniqueFd open_at_root(std::string_view path, int flags) const;

  HostOptions options_;
  std::string prefix_;                       // "" for "/", else the canonical root
  std::shared_ptr<const UniqueFd> root_fd_;  // O_PATH descriptor of the root; shared by copies
  AccessLog* log_ = nullptr;
};

}  // namespace anygpu
