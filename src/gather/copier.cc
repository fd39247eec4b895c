#include "gather/copier.h"

#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>

#include "health/health.h"
#include "host/paths.h"
#include "util/strings.h"
#include "util/unique_fd.h"

namespace anygpu::gather {

namespace {

// "/a/b/../c" -> "/a/c"
std::string normalize(std::string_view path) {
  std::vector<std::string_view> parts;
  for (auto p : split(path, '/')) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(p);
  }
  std::string out;
  for (auto p : parts) out += cat({"/", p});
  return out.empty() ? "/" : out;
}

const char* special_type(mode_t mode) {
  if (S_ISCHR(mode)) return "char";
  if (S_ISBLK(mode)) return "block";
  if (S_ISFIFO(mode)) return "fifo";
  return "socket";
}

// The error without the path it starts with: the manifest names the path beside it.
std::string reason(const Error& e, const std::string& path) {
  std::string_view m = e.message;
  if (m.starts_with(path + ": ")) m.remove_prefix(path.size() + 2);
  return std::string(m);
}

bool under_kernel_filesystem(std::string_view path) {
  for (auto prefix : paths::kKernelFilesystemPrefixes)
    if (path.starts_with(prefix)) return true;
  return false;
}

}  // namespace

Result<Reached> Copier::materialize(const std::string& path) {
  std::vector<std::string> chain;
  return walk(path, chain);
}

// `chain`: the links being followed to get here, innermost last.
Result<Reached> Copier::walk(const std::string& path, std::vector<std::string>& chain) {
  std::string cur;
  const std::string normalized = normalize(path);  // `parts` views into it
  auto parts = split(normalized, '/');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) continue;
    std::string next = cat({cur, "/", parts[i]});
    struct stat st {};
    // `cur` has no links left in it, so this is the entry `next` itself beneath the root.
    if (::lstat(host_.outside(next).c_str(), &st) != 0) return Reached();  // gone
    if (S_ISLNK(st.st_mode)) {
      auto r = follow(next, cur, chain);
      if (!r || !*r) return r;
      cur = **r;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (auto made = tree_.make_dirs(next); !made) return made.error();
      note_dir(next);
    } else if (i + 1 == parts.size()) {
      if (auto copied = copy(next, st); !copied) return copied.error();
    } else {
      return Reached();  // a file where the path wants a directory
    }
    cur = next;
  }
  return Reached(cur.empty() ? std::string("/") : cur);
}

// Copies the link at `at` (in directory `dir`, which has no links left in it), then its target,
// unless following it would loop or nest deeper than the kernel would.
Result<Reached> Copier::follow(const std::string& at, const std::string& dir,
                               std::vector<std::string>& chain) {
  auto target = host_.read_link(at);
  if (!target) {
    record_.not_copied.emplace(at, reason(target.error(), at));
    return Reached();
  }
  if (auto made = link(at, *target); !made) return made.error();
  bool loop = std::find(chain.begin(), chain.end(), at) != chain.end();
  if (loop || chain.size() >= kMaxSymlinkDepth) {
    record_.not_followed.emplace(at, loop ? "a symbolic link loop: copied as a link"
                                          : "more than 40 nested symbolic links: copied as a link");
    return Reached();
  }
  chain.push_back(at);
  auto r = walk((*target)[0] == '/' ? *target : cat({dir, "/", *target}), chain);
  chain.pop_back();
  return r;
}

Result<bool> Copier::materialize_entry(const std::string& path) {
  struct stat st {};
  if (::lstat(host_.outside(path).c_str(), &st) != 0) return true;
  if (S_ISLNK(st.st_mode)) {
    auto target = host_.read_link(path);
    return target ? link(path, *target) : Result<bool>(true);
  }
  if (S_ISDIR(st.st_mode)) {
    note_dir(path);
    return tree_.make_dirs(path);
  }
  return true;
}

void Copier::note_dir(const std::string& path) {
  if (dirs_.insert(path).second) ++record_.dirs;
}

Result<bool> Copier::link(const std::string& at, const std::string& target) {
  if (!links_.insert(at).second) return true;
  if (auto made = tree_.make_symlink(at, target); !made) return made.error();
  ++record_.links;
  return true;
}

Result<bool> Copier::copy(const std::string& path, const struct stat& st) {
  if (!files_.insert(path).second) return true;
  unsigned mode = st.st_mode & 0777;
  if (path == paths::kKmsg) return copy_kernel_log(path, mode);
  if (!S_ISREG(st.st_mode)) {
    SpecialFile s{path, special_type(st.st_mode), mode, st.st_uid, st.st_gid, std::nullopt};
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
      s.device = std::pair{major(st.st_rdev), minor(st.st_rdev)};
    record_.special.push_back(std::move(s));
    return write(path, "", mode);  // its presence and permissions are what readers see
  }
  // Shared libraries and executables are recorded by name only: their presence and version
  // suffix are what discovery and doctor read, and vendor binaries do not belong in a report.
  if (is_elf(path)) {
    record_.name_only.emplace(path, static_cast<uint64_t>(st.st_size));
    return write(path, "", mode);
  }
  auto text = host_.read_file(path, kMaxCopiedFileBytes);
  if (!text) {
    record_.not_copied.emplace(path, reason(text.error(), path));
    return true;
  }
  return write(path, redactor_.file(path, std::move(*text)), mode);
}

// The kernel log device becomes a regular file of the same records, which `health` reads the
// same way under --root.
Result<bool> Copier::copy_kernel_log(const std::string& path, unsigned mode) {
  auto text = host_.read_log(path, health::kKernelLogMaxBytes);
  if (!text) {
    record_.not_copied.emplace(
        path, cat({reason(text.error(), path),
                   " (reading it needs root or kernel.dmesg_restrict=0): health on the copy "
                   "cannot see the kernel log"}));
    return true;
  }
  auto content = redactor_.kernel_log(path, std::move(*text));
  record_.kernel_log_bytes = content.size();
  return write(path, content, mode);
}

Result<bool> Copier::write(const std::string& path, const std::string& content, unsigned mode) {
  // S_IRUSR: whoever gathered can read the copy. The whole tree is renamed into place: each
  // file is created in place, once.
  auto written =
      tree_.write_file(path, content, {.mode = mode | S_IRUSR, .sync = false, .atomic = false});
  if (!written) return written.error();
  ++record_.files;
  record_.bytes += content.size();
  return true;
}

// Kernel filesystems hold no ELF objects, and a sysfs read can wake a device: not opened twice.
bool Copier::is_elf(const std::string& path) const {
  if (under_kernel_filesystem(path)) return false;
  UniqueFd fd(::open(host_.outside(path).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return false;
  char magic[4];
  return ::read(fd.get(), magic, sizeof magic) == 4 && std::string_view(magic, 4) ==
                                                           "\x7f"
                                                           "ELF";
}

}  // namespace anygpu::gather
