#include "host/host_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "util/strings.h"

namespace anygpu {

namespace {

// The dynamic loader's default directories on Debian/Ubuntu (multiarch), RHEL and others.
constexpr std::string_view kStandardLibraryDirs[] = {
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
    "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
#endif
    "/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/lib",
};

Error errno_error(std::string_view path) {
  int e = errno;
  return internal_error(cat({path, ": ", std::strerror(e)}));
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
  HostOptions o;
  if (const char* r = std::getenv("ANYGPU_ROOT"); r && *r) o.root = r;
  if (const char* n = std::getenv("ANYGPU_NO_LIBS"); n && *n) {
    std::string v = to_lower(n);
    if (v == "1" || v == "true" || v == "yes") o.load_libraries = false;
    else if (v != "0" && v != "false" && v != "no")
      return bad_input(cat({"ANYGPU_NO_LIBS: expected 1 or 0, got '", n, "'"}));
  }
  if (const char* t = std::getenv("ANYGPU_LIB_TIMEOUT_MS"); t && *t) {
    auto ms = parse_uint(t);
    if (!ms || *ms == 0 || *ms > 600000)
      return bad_input(cat({"ANYGPU_LIB_TIMEOUT_MS: expected milliseconds 1..600000, got '", t,
                            "'"}));
    o.library_timeout = std::chrono::milliseconds(*ms);
  }
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
    : options_(std::move(options)), prefix_(normalize_root(options_.root)) {}

std::string HostRoot::outside(std::string_view host_path) const {
  return cat({prefix_, host_path});
}

void HostRoot::note(std::string_view path) const {
  if (log_) log_->add(std::string(path));
}

Result<std::string> HostRoot::read_file(std::string_view path, size_t max_bytes) const {
  std::string full = outside(path);
  int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return errno_error(path);
  struct stat st{};
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
    ::close(fd);
    return internal_error(cat({path, ": not a regular file"}));
  }
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto err = errno_error(path);
      ::close(fd);
      return err;
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return internal_error(cat({path, ": larger than ", std::to_string(max_bytes), " bytes"}));
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  note(path);
  return out;
}

Result<std::string> HostRoot::read_value(std::string_view path) const {
  auto text = read_file(path, kSmallFileBytes);
  if (!text) return text.error();
  auto line = first_line(*text);
  if (line.empty()) return internal_error(cat({path, ": empty"}));
  if (!is_printable_text(line)) return internal_error(cat({path, ": not text"}));
  return std::string(line);
}

Result<std::vector<std::string>> HostRoot::list_dir(std::string_view path) const {
  std::string full = outside(path);
  DIR* d = ::opendir(full.c_str());
  if (!d) return errno_error(path);
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

Result<std::string> HostRoot::read_link(std::string_view path) const {
  std::string full = outside(path);
  char buf[PATH_MAX];
  ssize_t n = ::readlink(full.c_str(), buf, sizeof buf - 1);
  if (n < 0) return errno_error(path);
  note(path);
  return std::string(buf, static_cast<size_t>(n));
}

Result<std::string> HostRoot::resolve(std::string_view path) const {
  std::string full = outside(path);
  char buf[PATH_MAX];
  if (!::realpath(full.c_str(), buf)) return errno_error(path);
  std::string real = buf;
  note(path);
  if (prefix_.empty()) return real;
  if (real == prefix_) return std::string("/");
  if (real.compare(0, prefix_.size() + 1, prefix_ + "/") != 0)
    return bad_input(cat({path, ": resolves outside the root (", real, ")"}));
  return real.substr(prefix_.size());
}

bool HostRoot::exists(std::string_view path) const {
  struct stat st{};
  bool found = ::stat(outside(path).c_str(), &st) == 0;
  if (found) note(path);
  return found;
}

bool HostRoot::is_dir(std::string_view path) const {
  struct stat st{};
  return ::stat(outside(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> HostRoot::library_dirs(
    std::span<const std::string_view> extra_dirs) const {
  std::vector<std::string> dirs;
  for (auto d : kStandardLibraryDirs) dirs.emplace_back(d);
  for (auto d : extra_dirs) dirs.emplace_back(d);
  return dirs;
}

std::optional<std::string> HostRoot::find_library(
    std::span<const std::string_view> sonames,
    std::span<const std::string_view> extra_dirs) const {
  for (auto soname : sonames)
    for (const auto& dir : library_dirs(extra_dirs)) {
      std::string p = cat({dir, "/", soname});
      if (exists(p)) return p;
    }
  return std::nullopt;
}

Result<std::shared_ptr<DynamicLibrary>> HostRoot::open_library(
    std::span<const std::string_view> sonames,
    std::span<const std::string_view> extra_dirs) const {
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
      if (!exists(host_path)) continue;
      if (auto lib = attempt(outside(host_path))) return lib;
    }
  if (tried.empty()) {
    std::vector<std::string> names(sonames.begin(), sonames.end());
    return host_error(cat({join(names, ", "), ": not found"}));
  }
  return host_error(tried);
}

}  // namespace anygpu
