#include "host/unit_lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>

#include "util/file_trust.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr std::string_view kSuffix = ".lock";
constexpr char kPartitionMark = '@';

bool is_lower_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return !s.empty();
}

bool valid_bus_id(std::string_view s) {
  auto parts = split(s, ':');
  if (parts.size() != 3) return false;
  auto dot = parts[2].find('.');
  if (dot == std::string_view::npos) return false;
  auto dev = parts[2].substr(0, dot), fn = parts[2].substr(dot + 1);
  return parts[0].size() >= 4 && parts[0].size() <= 8 && is_lower_hex(parts[0]) &&
         parts[1].size() == 2 && is_lower_hex(parts[1]) && dev.size() == 2 && is_lower_hex(dev) &&
         fn.size() == 1 && fn[0] >= '0' && fn[0] <= '7';
}

bool valid_partition(std::string_view s) {
  // 0..9999, written without leading zeros, so that one partition has one key.
  if (s.empty() || s.size() > 4 || (s.size() > 1 && s[0] == '0')) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::string refusal(const std::string& path, std::string_view why) {
  return cat({path, ": refused as the lock directory: ", why,
              "; anygpu run records which devices each run holds there, so it must be a real "
              "directory that only root or this user can change (or set ANYGPU_LOCK_DIR)"});
}

// One component beneath `parent`: created when asked, then opened without following a link
// and judged by what was opened.
Result<UniqueFd> open_component(int parent, const std::string& name, const std::string& path,
                                bool create, mode_t mode, uid_t euid) {
  if (create && ::mkdirat(parent, name.c_str(), mode) != 0 && errno != EEXIST)
    return system_error(path, "cannot create the lock directory", errno);
  struct stat st {};
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT && !create) return UniqueFd();
    return system_error(path, "cannot read the lock directory", errno);
  }
  if (S_ISLNK(st.st_mode)) return bad_input(refusal(path, "it is a symbolic link"));
  if (!S_ISDIR(st.st_mode)) return bad_input(refusal(path, "it is not a directory"));
  UniqueFd fd(::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    if (errno == ELOOP) return bad_input(refusal(path, "it is a symbolic link"));
    return system_error(path, "cannot open the lock directory", errno);
  }
  if (::fstat(fd.get(), &st) != 0)
    return system_error(path, "cannot read the lock directory", errno);
  if (auto problem = trust_problem(st, path, euid); !problem.empty())
    return bad_input(refusal(path, problem));
  return fd;
}

bool owned_directory(const std::string& path, uid_t euid) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == euid &&
         !(st.st_mode & 022);
}

std::optional<std::string> read_small(int dir_fd, const std::string& name, size_t max) {
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out(max, '\0');
  ssize_t n = ::pread(fd.get(), out.data(), max, 0);
  if (n < 0) return std::nullopt;
  out.resize(static_cast<size_t>(n));
  return out;
}

// The holder's record: its pid, rewritten only in a file that is certainly ours alone.
void record_holder(int fd, const struct stat& st, uid_t euid) {
  if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != euid) return;
  auto text = cat({std::to_string(::getpid()), "\n"});
  if (::ftruncate(fd, 0) == 0) {
    ssize_t n = ::pwrite(fd, text.data(), text.size(), 0);
    (void)n;  // the record is a courtesy: the lock is what counts
  }
}

UniqueFd open_lock_file(int dir_fd, const std::string& name, bool* writable) {
  constexpr int kFlags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | kFlags, 0644));
  *writable = static_cast<bool>(fd);
  // Another user's lock file in a shared (sticky) directory: flock needs only a read descriptor.
  if (!fd && (errno == EACCES || errno == EPERM))
    fd = UniqueFd(::openat(dir_fd, name.c_str(), O_RDONLY | kFlags));
  return fd;
}

std::optional<std::string> process_command(long pid) {
  if (pid <= 0) return std::nullopt;
  UniqueFd fd(::open(cat({"/proc/", std::to_string(pid), "/comm"}).c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[64];
  ssize_t n = ::read(fd.get(), buf, sizeof buf);
  if (n <= 0) return std::nullopt;
  auto text = std::string(trim(std::string_view(buf, static_cast<size_t>(n))));
  if (text.empty()) return std::nullopt;
  return escape_control(text);
}

}  // namespace

std::string unit_lock_key(std::string_view bus_id, std::optional<int> partition) {
  std::string key = to_lower(bus_id);
  if (partition) key += cat({"/", std::to_string(*partition)});
  return key;
}

bool valid_unit_lock_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return valid_bus_id(key);
  return valid_bus_id(key.substr(0, slash)) && valid_partition(key.substr(slash + 1));
}

std::string lock_file_name(std::string_view key) {
  std::string name(key);
  for (auto& c : name)
    if (c == '/') c = kPartitionMark;
  return name + std::string(kSuffix);
}

std::optional<std::string> key_of_lock_file(std::string_view name) {
  if (!name.ends_with(kSuffix)) return std::nullopt;
  std::string key(name.substr(0, name.size() - kSuffix.size()));
  for (auto& c : key)
    if (c == kPartitionMark) c = '/';
  if (!valid_unit_lock_key(key)) return std::nullopt;
  return key;
}

Result<LockDirectory> lock_directory(const std::map<std::string, std::string>& env, uid_t euid) {
  LockDirectory d;
  auto set = [&](const char* name) -> const std::string* {
    auto it = env.find(name);
    return it == env.end() || it->second.empty() ? nullptr : &it->second;
  };
  if (const auto* dir = set("ANYGPU_LOCK_DIR")) {
    std::string p(*dir);
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    auto slash = p.rfind('/');
    if (p.front() != '/' || slash == std::string::npos || p == "/")
      return bad_input(cat({"ANYGPU_LOCK_DIR=\"", escape_control(*dir),
                            "\": expected an absolute path to a directory"}));
    d.base = slash == 0 ? "/" : p.substr(0, slash);
    d.components = {p.substr(slash + 1)};
    d.path = p;
    d.mode = euid == 0 ? 0755 : 0700;
    d.origin = "ANYGPU_LOCK_DIR";
    return d;
  }
  d.components = {"anygpu", "locks"};
  if (euid == 0) {
    d.base = "/run";
    d.mode = 0755;
    d.origin = "root";
  } else if (const auto* xdg = set("XDG_RUNTIME_DIR"); xdg && xdg->front() == '/') {
    d.base = *xdg;
    d.origin = "XDG_RUNTIME_DIR";
  } else if (auto run_user = cat({"/run/user/", std::to_string(euid)});
             owned_directory(run_user, euid)) {
    d.base = run_user;
    d.origin = "XDG_RUNTIME_DIR unset: the login session's directory";
  } else {
    d.base = "/tmp";
    d.components = {cat({"anygpu-", std::to_string(euid)}), "locks"};
    d.origin = "XDG_RUNTIME_DIR unset and no /run/user directory";
  }
  d.path = d.base == "/" ? "" : d.base;
  for (const auto& c : d.components) d.path += "/" + c;
  return d;
}

Result<UniqueFd> open_lock_directory(const LockDirectory& dir, bool create, uid_t euid) {
  UniqueFd fd(::open(dir.base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    if (errno == ENOENT && !create) return UniqueFd();
    return system_error(dir.base, "cannot open the lock directory's parent", errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return system_error(dir.base, "cannot read the lock directory's parent", errno);
  if (auto problem = trust_problem(st, dir.base, euid); !problem.empty())
    return bad_input(refusal(dir.path, problem));
  std::string path = dir.base == "/" ? "" : dir.base;
  for (const auto& c : dir.components) {
    path += "/" + c;
    auto next = open_component(fd.get(), c, path, create, dir.mode, euid);
    if (!next) return next.error();
    if (!*next) return UniqueFd();
    fd = std::move(*next);
  }
  return fd;
}

Result<std::optional<UnitLock>> try_lock_unit(int dir_fd, const std::string& dir_path,
                                              const std::string& key, uid_t euid, LockMode mode) {
  const std::string name = lock_file_name(key);
  const std::string path = cat({dir_path, "/", name});
  // A file removed and created anew between open and flock (a cleaner of /tmp) would let two
  // runs lock two inodes of one name: the lock counts only when the name still is this inode.
  for (int attempt = 0; attempt < 8; ++attempt) {
    bool writable = false;
    UniqueFd fd = open_lock_file(dir_fd, name, &writable);
    if (!fd) {
      if (errno == ELOOP)
        return bad_input(cat({path, ": a symbolic link where a lock file belongs"}));
      return system_error(path, "cannot open the lock file", errno);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return system_error(path, "cannot read the lock file", errno);
    if (!S_ISREG(st.st_mode)) return bad_input(cat({path, ": not a regular file (a lock file)"}));
    int how = mode == LockMode::shared ? LOCK_SH : LOCK_EX;
    if (::flock(fd.get(), how | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) return std::optional<UnitLock>();
      return system_error(path, "cannot lock", errno);
    }
    struct stat now {};
    if (::fstatat(dir_fd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 ||
        now.st_ino != st.st_ino || now.st_dev != st.st_dev)
      continue;
    if (writable && mode == LockMode::exclusive) record_holder(fd.get(), st, euid);
    return std::optional<UnitLock>(UnitLock{key, std::move(fd)});
  }
  return internal_error(cat({path, ": the lock file keeps being replaced"}));
}

Result<bool> keep_across_exec(const UnitLock& lock) {
  int flags = ::fcntl(lock.fd.get(), F_GETFD);
  if (flags < 0 || ::fcntl(lock.fd.get(), F_SETFD, flags & ~FD_CLOEXEC) != 0)
    return internal_error(
        cat({"cannot keep the lock on ", lock.key, " across exec: ", std::strerror(errno)}));
  return true;
}

std::vector<ProcLock> parse_proc_locks(std::string_view text) {
  std::vector<ProcLock> out;
  for (auto line : split_lines(text)) {
    std::vector<std::string_view> f;
    for (auto t : split(line, ' '))
      if (!t.empty()) f.push_back(t);
    ProcLock l;
    size_t i = 1;
    if (f.size() > 1 && f[1] == "->") l.blocked = true, ++i;
    // "N:" KIND ADVISORY|MANDATORY READ|WRITE|… PID MAJ:MIN:INODE START END
    if (f.size() != i + 7 || !f[0].ends_with(':') || !parse_uint(f[0].substr(0, f[0].size() - 1)))
      continue;
    l.kind = std::string(f[i]);
    l.write = f[i + 2] == "WRITE";
    auto pid = parse_int(f[i + 3]);
    auto id = split(f[i + 4], ':');
    if (!pid || id.size() != 3) continue;
    auto maj = parse_hex(id[0]), min = parse_hex(id[1]);
    auto ino = parse_uint(id[2]);
    if (!maj || !min || !ino || id[0].starts_with("0x") || id[1].starts_with("0x") ||
        *maj > 0xfffff || *min > 0xfffff)
      continue;
    l.pid = static_cast<long>(*pid);
    l.dev_major = static_cast<unsigned>(*maj);
    l.dev_minor = static_cast<unsigned>(*min);
    l.inode = *ino;
    out.push_back(std::move(l));
  }
  return out;
}

std::map<std::string, LockHolder> current_lock_holders(int dir_fd, std::string_view proc_locks) {
  std::map<std::string, LockHolder> out;
  if (dir_fd < 0) return out;
  auto locks = parse_proc_locks(proc_locks);
  int listing = ::dup(dir_fd);
  if (listing < 0) return out;
  DIR* dir = ::fdopendir(listing);
  if (!dir) {
    ::close(listing);
    return out;
  }
  ::rewinddir(dir);
  while (auto* e = ::readdir(dir)) {
    auto key = key_of_lock_file(e->d_name);
    if (!key) continue;
    struct stat st {};
    if (::fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    for (const auto& l : locks)
      if (l.kind == "FLOCK" && !l.blocked && l.dev_major == major(st.st_dev) &&
          l.dev_minor == minor(st.st_dev) && l.inode == st.st_ino) {
        LockHolder h{*key, std::nullopt, std::nullopt, !l.write};
        if (l.pid > 0) h.pid = l.pid;
        out[*key] = h;
      }
  }
  ::closedir(dir);
  return out;
}

std::map<std::string, LockHolder> read_lock_holders(int dir_fd) {
  std::string text;
  UniqueFd fd(::open("/proc/locks", O_RDONLY | O_CLOEXEC));
  if (fd) {
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  }
  auto holders = current_lock_holders(dir_fd, text);
  for (auto& [key, h] : holders)
    if (h.pid) h.command = process_command(*h.pid);
  return holders;
}

LockHolder holder_of(int dir_fd, const std::string& key,
                     const std::map<std::string, LockHolder>& holders) {
  if (auto it = holders.find(key); it != holders.end() && it->second.pid) return it->second;
  LockHolder h{key, std::nullopt, std::nullopt, false};
  if (auto text = read_small(dir_fd, lock_file_name(key), 32))
    if (auto pid = parse_int(first_line(*text)); pid && *pid > 0) {
      h.pid = static_cast<long>(*pid);
      h.command = process_command(*h.pid);
    }
  return h;
}

std::string holder_text(const LockHolder& holder) {
  if (!holder.pid) return "an unknown process";
  auto out = cat({"pid ", std::to_string(*holder.pid)});
  if (holder.command) out += cat({" (", *holder.command, ")"});
  return out;
}

}  // namespace anygpu
