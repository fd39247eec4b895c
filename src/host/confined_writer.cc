#include "host/confined_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "util/regular_file.h"
#include "util/strings.h"
#include "util/unique_fd.h"

namespace anygpu {

namespace confined_detail {

std::atomic<bool> have_openat2{true};

}  // namespace confined_detail

using Fd = UniqueFd;

struct ConfinedDir::Parent {
  Fd dir;
  std::string dir_rel;  // for messages
  std::string name;
};

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
// Room for the tag and the random part within NAME_MAX.
constexpr size_t kMaxStem = 200;
constexpr std::string_view kFileTag = ".anygpu-tmp-";
constexpr std::string_view kTreeTag = ".anygpu-partial-";
constexpr size_t kRandomHexChars = 16;

Error sys_error(std::string_view what, const std::string& shown, int e) {
  // Out of space, quota, descriptors or memory, or a read-only target: said as such.
  if (is_resource_error(e)) return system_error(shown, what, e, ErrorKind::internal);
  Error err = internal_error(cat({shown, ": ", what, ": ", std::strerror(e)}));
  err.sys_errno = e;
  return err;
}

std::string random_hex() {
  unsigned char bytes[kRandomHexChars / 2];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof bytes) {  // getrandom unavailable (seccomp): the C++ entropy source
    std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (auto b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool is_random_part(std::string_view s) {
  if (s.size() != kRandomHexChars) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Result<std::vector<std::string>> components(std::string_view rel, bool allow_dotdot,
                                            const std::string& shown) {
  std::vector<std::string> out;
  for (auto part : split(rel, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == ".." && !allow_dotdot) return bad_input(cat({shown, ": \"..\" is not allowed"}));
    out.emplace_back(part);
  }
  return out;
}

std::string joined(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += cat({i ? "/" : "", parts[i]});
  return out;
}

// Opens directory `rel` beneath `base` as `how` allows; -1 with errno on failure.
int open_beneath(int base, const std::string& rel, Confinement how) {
  if (rel.empty()) return ::openat(base, ".", kDirFlags);
  if (how == Confinement::system) return ::openat(base, rel.c_str(), kDirFlags);
  if (confined_detail::have_openat2.load(std::memory_order_relaxed)) {
    open_how h{};
    h.flags = kDirFlags;
    h.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    if (how == Confinement::no_symlinks) h.resolve |= RESOLVE_NO_SYMLINKS;
    long fd = -1;
    // A rename anywhere on the system during the lookup makes a scoped lookup fail with
    // EAGAIN; it means "try again", not "refused".
    for (int attempt = 0; attempt < 64; ++attempt) {
      fd = ::syscall(SYS_openat2, base, rel.c_str(), &h, sizeof h);
      if (fd >= 0 || errno != EAGAIN) break;
    }
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return static_cast<int>(fd);
    confined_detail::have_openat2 = false;  // kernel before 5.6, or a seccomp filter
  }
  // Without openat2: one component at a time, following no link at all (stricter than
  // RESOLVE_BENEATH, never looser).
  Fd cur(::openat(base, ".", kDirFlags));
  for (auto part : split(rel, '/')) {
    if (part.empty()) continue;
    int next = ::openat(cur.get(), std::string(part).c_str(), kDirFlags | O_NOFOLLOW);
    if (next < 0) return -1;
    cur = Fd(next);
  }
  return cur.release();
}

Result<bool> write_all(int fd, std::string_view content, const std::string& shown) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return sys_error("write", shown, n < 0 ? errno : EIO);
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Takes the lock that marks a temporary as alive. false: a cleaner removed the entry between
// its creation and the lock (it took the lock first), so the caller starts over.
bool lock_fresh(int fd) {
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) return false;
  struct stat st {};
  return ::fstat(fd, &st) == 0 && st.st_nlink > 0;
}

void remove_tree_at(int parent, const std::string& name) {
  Fd dir(::openat(parent, name.c_str(), kDirFlags | O_NOFOLLOW));
  if (dir) {
    std::vector<std::pair<std::string, bool>> entries;
    if (DIR* d = ::fdopendir(::openat(dir.get(), ".", kDirFlags))) {
      while (auto* e = ::readdir(d)) {
        std::string_view n = e->d_name;
        if (n == "." || n == "..") continue;
        struct stat st {};
        bool is_dir =
            ::fstatat(dir.get(), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        entries.emplace_back(n, is_dir);
      }
      ::closedir(d);
    }
    for (const auto& [n, is_dir] : entries) {
      if (is_dir)
        remove_tree_at(dir.get(), n);
      else
        ::unlinkat(dir.get(), n.c_str(), 0);
    }
  }
  ::unlinkat(parent, name.c_str(), AT_REMOVEDIR);
}

// Removes entries named `prefix` + random part that a killed run of ours left: ours by name,
// type and owner, dead because nobody holds their lock. Links and live ones stay.
void clean_stale(int parent, const std::string& prefix, bool directories) {
  std::vector<std::string> names;
  if (DIR* d = ::fdopendir(::openat(parent, ".", kDirFlags))) {
    while (auto* e = ::readdir(d)) {
      std::string_view n = e->d_name;
      if (n.starts_with(prefix) && is_random_part(n.substr(prefix.size()))) names.emplace_back(n);
    }
    ::closedir(d);
  }
  for (const auto& n : names) {
    int flags = (directories ? kDirFlags : O_RDONLY | O_CLOEXEC) | O_NOFOLLOW | O_NONBLOCK;
    Fd f(::openat(parent, n.c_str(), flags));
    struct stat st {
    }, again{};
    if (!f || ::fstat(f.get(), &st) != 0) continue;
    if ((directories ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) || st.st_uid != ::geteuid())
      continue;
    if (::flock(f.get(), LOCK_EX | LOCK_NB) != 0) continue;  // its writer is alive
    if (::fstatat(parent, n.c_str(), &again, AT_SYMLINK_NOFOLLOW) != 0 ||
        again.st_ino != st.st_ino || again.st_dev != st.st_dev)
      continue;
    if (directories)
      remove_tree_at(parent, n);
    else
      ::unlinkat(parent, n.c_str(), 0);
  }
}

bool empty_dir(int parent, const std::string& name) {
  DIR* d = ::fdopendir(::openat(parent, name.c_str(), kDirFlags | O_NOFOLLOW));
  if (!d) return false;
  bool empty = true;
  while (auto* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") empty = false;
  }
  ::closedir(d);
  return empty;
}

// "dir/name" split at the last slash; "." or "/" for the directory when there is none.
std::pair<std::string, std::string> split_path(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

std::string temp_file_prefix(std::string_view name) {
  return cat({".", name.substr(0, kMaxStem), kFileTag});
}

std::string staged_tree_prefix(std::string_view name) {
  return cat({".", name.substr(0, kMaxStem), kTreeTag});
}

ConfinedDir::ConfinedDir(std::string path, Confinement how, UniqueFd fd)
    : path_(std::move(path)), how_(how), fd_(std::make_shared<const UniqueFd>(std::move(fd))) {}

Result<ConfinedDir> ConfinedDir::open(const std::string& dir, Confinement how, bool create) {
  if (dir.empty()) return bad_input("an empty directory name");
  bool absolute = dir.front() == '/';
  UniqueFd start(::open(absolute ? "/" : ".", kDirFlags));
  if (!start) return sys_error("open", absolute ? "/" : ".", errno);
  // The caller's own path resolves as the system resolves it.
  ConfinedDir from(absolute ? "/" : ".", Confinement::system, std::move(start));
  auto fd = from.open_dir(dir, create);
  if (!fd) return fd.error();
  std::string shown = dir;
  while (shown.size() > 1 && shown.back() == '/') shown.pop_back();
  return ConfinedDir(shown, how, std::move(*fd));
}

std::string ConfinedDir::show(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (rel.empty()) return path_;
  if (path_ == ".") return std::string(rel);
  return cat({path_, path_ == "/" ? "" : "/", rel});
}

Result<UniqueFd> ConfinedDir::open_dir(std::string_view rel, bool create) const {
  auto parts = components(rel, how_ == Confinement::system, show(rel));
  if (!parts) return parts.error();
  Fd cur(open_beneath(fd_->get(), "", how_));
  if (!cur) return sys_error("open", path_, errno);
  for (size_t i = 0; i < parts->size(); ++i) {
    std::string prefix = joined(*parts, i + 1);
    const std::string& part = (*parts)[i];
    int fd = open_beneath(fd_->get(), prefix, how_);
    if (fd < 0 && errno == ENOENT && create) {
      if (::mkdirat(cur.get(), part.c_str(), 0755) != 0 && errno != EEXIST)
        return sys_error("mkdir", show(prefix), errno);
      fd = open_beneath(fd_->get(), prefix, how_);
    }
    if (fd < 0) {
      int err = errno;
      struct stat st {};
      if (::fstatat(cur.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = ::readlinkat(cur.get(), part.c_str(), target, sizeof target - 1);
        std::string to = n > 0 ? std::string(target, static_cast<size_t>(n)) : "?";
        return bad_input(cat(
            {"refusing to write through ", show(prefix), ": a symbolic link to ", to,
             how_ == Confinement::beneath ? cat({" (links beneath ", path_, " may not leave it)"})
                                          : std::string(" (links are not followed here)")}));
      }
      if (err == ENOTDIR) return sys_error("not a directory", show(prefix), err);
      return sys_error("open", show(prefix), err);
    }
    cur = Fd(fd);
  }
  return cur;
}

Result<ConfinedDir::Parent> ConfinedDir::open_parent(std::string_view rel, bool create) const {
  auto parts = components(rel, false, show(rel));
  if (!parts) return parts.error();
  if (parts->empty()) return bad_input(cat({show(rel), ": not a file name"}));
  Parent p;
  p.dir_rel = joined(*parts, parts->size() - 1);
  p.name = parts->back();
  auto fd = open_dir(p.dir_rel, create);
  if (!fd) {  // the message names the file, then the directory on its way that failed
    Error e = fd.error();
    e.message = cat({show(rel), ": ", e.message});
    return e;
  }
  p.dir = std::move(*fd);
  return p;
}

Result<bool> ConfinedDir::write_file(std::string_view rel, std::string_view content,
                                     WriteOptions o) const {
  auto parent = open_parent(rel, true);
  if (!parent) return parent.error();
  const int dir = parent->dir.get();
  const std::string shown = show(rel);
  if (!o.atomic) {
    Fd fd(::openat(dir, parent->name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   o.mode));
    if (!fd) return sys_error("create", shown, errno);
    if (auto w = write_all(fd.get(), content, shown); !w) return w;
    if (o.sync && ::fsync(fd.get()) != 0) return sys_error("fsync", shown, errno);
    return true;
  }
  const std::string prefix = temp_file_prefix(parent->name);
  clean_stale(dir, prefix, false);
  Fd fd;
  std::string temp;
  for (int attempt = 0;; ++attempt) {
    temp = prefix + random_hex();
    int f =
        ::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, o.mode);
    if (f < 0 && errno == EEXIST && attempt < 16) continue;
    if (f < 0) return sys_error("cannot create a temporary file beside it", shown, errno);
    fd = Fd(f);
    if (lock_fresh(fd.get())) break;
    if (attempt >= 16) return internal_error(cat({shown, ": temporary file removed repeatedly"}));
  }
  auto discard = [&](Error e) {
    ::unlinkat(dir, temp.c_str(), 0);
    return e;
  };
  if (auto w = write_all(fd.get(), content, shown); !w) return discard(w.error());
  if (o.sync && ::fsync(fd.get()) != 0) return discard(sys_error("fsync", shown, errno));
  if (::renameat(dir, temp.c_str(), dir, parent->name.c_str()) != 0)
    return discard(sys_error("rename", shown, errno));
  if (o.sync && ::fsync(dir) != 0) return sys_error("fsync", show(parent->dir_rel), errno);
  return true;
}

Result<std::string> ConfinedDir::read_file(std::string_view rel, size_t max_bytes) const {
  auto parent = open_parent(rel, false);
  if (!parent) return parent.error();
  const std::string shown = show(rel);
  Fd fd(::openat(parent->dir.get(), parent->name.c_str(),
                 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return sys_error("open", shown, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return bad_input(cat({shown, ": not a regular file"}));
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error("read", shown, errno);
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes)
      return bad_input(cat({shown, ": larger than ", std::to_string(max_bytes), " bytes"}));
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Result<bool> ConfinedDir::make_dirs(std::string_view rel) const {
  auto fd = open_dir(rel, true);
  if (!fd) return fd.error();
  return true;
}

Result<bool> ConfinedDir::make_symlink(std::string_view rel, const std::string& target) const {
  auto parent = open_parent(rel, true);
  if (!parent) return parent.error();
  if (::symlinkat(target.c_str(), parent->dir.get(), parent->name.c_str()) != 0 && errno != EEXIST)
    return sys_error("symlink", show(rel), errno);
  return true;
}

Result<std::vector<ConfinedDir::Entry>> ConfinedDir::list(std::string_view rel) const {
  auto fd = open_dir(rel, false);
  if (!fd) return fd.error();
  int dup = ::fcntl(fd->get(), F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return sys_error("dup", show(rel), errno);
  DIR* d = ::fdopendir(dup);
  if (!d) {
    int e = errno;
    ::close(dup);
    return sys_error("opendir", show(rel), e);
  }
  std::vector<Entry> out;
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    Entry entry{name};
    struct stat st {};
    if (::fstatat(fd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      entry.regular = S_ISREG(st.st_mode);
      entry.mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
      entry.size = static_cast<uint64_t>(st.st_size);
    }
    out.push_back(std::move(entry));
  }
  ::closedir(d);
  return out;
}

Result<bool> ConfinedDir::remove_file(std::string_view rel) const {
  auto parent = open_parent(rel, false);
  if (!parent) return parent.error().sys_errno == ENOENT ? Result<bool>(false) : parent.error();
  struct stat st {};
  if (::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(st.st_mode))
    return false;
  if (::unlinkat(parent->dir.get(), parent->name.c_str(), 0) != 0) {
    if (errno == ENOENT) return false;
    return sys_error("remove", show(rel), errno);
  }
  return true;
}

Result<bool> ConfinedDir::rename_file(std::string_view rel, std::string_view new_name) const {
  if (new_name.empty() || new_name.find('/') != std::string_view::npos || new_name == "." ||
      new_name == "..")
    return bad_input(cat({show(rel), ": '", new_name, "' is not a file name"}));
  auto parent = open_parent(rel, false);
  if (!parent) return parent.error();
  struct stat st {};
  if (::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
      !S_ISREG(st.st_mode))
    return false;
  std::string to(new_name);
  if (::renameat(parent->dir.get(), parent->name.c_str(), parent->dir.get(), to.c_str()) != 0)
    return sys_error("rename", show(rel), errno);
  return true;
}

Result<bool> ConfinedDir::check(std::string_view rel) const {
  auto parent = open_parent(rel, false);
  if (!parent) return parent.error().sys_errno == ENOENT ? Result<bool>(true) : parent.error();
  struct stat st {};
  if (::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(st.st_mode))
    return bad_input(cat({show(rel), ": is a directory"}));
  return true;
}

bool ConfinedDir::exists(std::string_view rel) const {
  auto parent = open_parent(rel, false);
  struct stat st {};
  return parent &&
         ::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

Result<bool> write_named_file(const std::string& path, std::string_view content, unsigned mode) {
  if (path.empty()) return bad_input("an empty file name");
  auto [dir, name] = split_path(path);
  if (name.empty() || name == "." || name == "..") return bad_input(path + ": not a file name");
  auto d = ConfinedDir::open(dir, Confinement::no_symlinks, true);
  if (!d) return d.error();
  return d->write_file(name, content, {.mode = mode});
}

StagedTree::StagedTree(std::string dest, ConfinedDir parent, std::string base, std::string temp,
                       ConfinedDir tree)
    : dest_(std::move(dest)),
      parent_(std::move(parent)),
      base_(std::move(base)),
      temp_(std::move(temp)),
      tree_(std::move(tree)) {}

StagedTree::~StagedTree() {
  if (!committed_) remove_tree_at(parent_.fd_->get(), temp_);
}

Result<std::unique_ptr<StagedTree>> StagedTree::begin(const std::string& dest) {
  auto [dir, base] = split_path(dest);
  if (base.empty() || base == "." || base == "..")
    return bad_input(cat({dest, ": name a new directory"}));
  auto parent = ConfinedDir::open(dir, Confinement::no_symlinks, true);
  if (!parent) return parent.error();
  const int pfd = parent->fd_->get();
  struct stat st {};
  if (::fstatat(pfd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISDIR(st.st_mode) || !empty_dir(pfd, base))
      return bad_input(cat({dest, ": exists and is not an empty directory"}));
  } else if (errno != ENOENT) {
    return sys_error("stat", dest, errno);
  }
  const std::string prefix = staged_tree_prefix(base);
  clean_stale(pfd, prefix, true);
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string temp = prefix + random_hex();
    if (::mkdirat(pfd, temp.c_str(), 0755) != 0) {
      if (errno == EEXIST) continue;
      return sys_error("mkdir", parent->show(temp), errno);
    }
    Fd fd(::openat(pfd, temp.c_str(), kDirFlags | O_NOFOLLOW));
    if (!fd || !lock_fresh(fd.get())) continue;
    ConfinedDir tree(parent->show(temp), Confinement::no_symlinks, std::move(fd));
    return std::unique_ptr<StagedTree>(
        new StagedTree(dest, std::move(*parent), base, std::move(temp), std::move(tree)));
  }
  return internal_error(cat({dest, ": cannot create a staging directory beside it"}));
}

Result<bool> StagedTree::commit() {
  const int pfd = parent_.fd_->get();
  if (::renameat(pfd, temp_.c_str(), pfd, base_.c_str()) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR)
      return bad_input(cat({dest_, ": exists and is not an empty directory"}));
    return sys_error("rename", dest_, errno);
  }
  committed_ = true;
  if (::fsync(pfd) != 0) return sys_error("fsync", parent_.path(), errno);
  return true;
}

namespace testing_hooks {
void confined_writer_use_openat2(bool use) {
  confined_detail::have_openat2 = use;
}
}  // namespace testing_hooks

}  // namespace anygpu
