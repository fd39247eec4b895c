#include "util/file_trust.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <deque>
#include <vector>

#include "util/fork_safety.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit (MAXSYMLINKS)

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

struct Dir {
  UniqueFd fd;
  std::string path;  // as the walk names it ("/" or "/etc/cdi"), beneath the root
};

std::string child_path(const std::string& dir, std::string_view name) {
  return dir == "/" ? cat({"/", name}) : cat({dir, "/", name});
}

void push_parts(std::deque<std::string>& parts, std::string_view path) {
  auto pieces = split(path, '/');
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it)
    if (!it->empty() && *it != ".") parts.emplace_front(*it);
}

class Walk {
 public:
  Walk(std::string_view what, const TrustOptions& options) : what_(what), options_(options) {}

  Result<CheckedFile> run(std::string_view path) {
    if (path.empty()) return bad_input(cat({"an empty path was given for the ", what_}));
    requested_ = options_.root == "/"  ? std::string(path)
                 : path.front() == '/' ? shown(std::string(path))
                                       : shown(cat({"/", path}));
    auto absolute = absolute_path(path);
    if (!absolute) return absolute.error();
    if (auto started = start(); !started) return started.error();
    push_parts(parts_, *absolute);
    while (!parts_.empty()) {
      std::string name = std::move(parts_.front());
      parts_.pop_front();
      if (name == "..") {
        if (stack_.size() > 1) stack_.pop_back();
        continue;
      }
      auto next = step(name);
      if (!next) return next.error();
      if (*next) return std::move(**next);
    }
    return bad_input(cat({requested_, ": names a directory, not a file (the ", what_, ")"}));
  }

 private:
  Result<bool> start() {
    UniqueFd root(::open(options_.root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!root) return fail("/", errno);
    struct stat st {};
    if (::fstat(root.get(), &st) != 0) return fail("/", errno);
    note(st, "/");
    stack_.push_back({std::move(root), "/"});
    return true;
  }

  // One component: a link is queued for the walk to follow, a directory entered; the last one
  // is the file, opened (then returned).
  Result<std::optional<CheckedFile>> step(const std::string& name) {
    const std::string here = child_path(stack_.back().path, name);
    UniqueFd fd(::openat(stack_.back().fd.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return fail(here, errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return fail(here, errno);
    if (S_ISLNK(st.st_mode)) {
      if (++links_ > kMaxLinks) return fail(here, ELOOP);
      note(st, here);
      auto target = read_link(fd.get(), here);
      if (!target) return target.error();
      if (!target->empty() && target->front() == '/') stack_.resize(1);
      push_parts(parts_, *target);
      return std::optional<CheckedFile>();
    }
    if (parts_.empty()) {
      auto file = open_last(name, here);
      if (!file) return file.error();
      return std::optional<CheckedFile>(std::move(*file));
    }
    if (!S_ISDIR(st.st_mode)) return fail(here, ENOTDIR);
    note(st, here);
    stack_.push_back({std::move(fd), here});
    return std::optional<CheckedFile>();
  }

  Result<std::string> absolute_path(std::string_view path) const {
    if (path.front() == '/') return std::string(path);
    if (options_.root != "/") return cat({"/", path});
    auto cwd = working_directory();
    if (!cwd) return cwd.error();
    return child_path(*cwd, path);
  }

  // Not a link (the walk followed those): O_NOFOLLOW refuses one swapped in since.
  Result<CheckedFile> open_last(const std::string& name, const std::string& here) {
    CheckedFile out;
    auto fd =
        open_regular_at(stack_.back().fd.get(), name, shown(here), what_, O_NOFOLLOW, &out.st);
    if (!fd) return fd.error();
    note(out.st, here);
    out.fd = std::move(*fd);
    out.untrusted = std::move(problem_);
    return out;
  }

  Result<std::string> read_link(int fd, const std::string& here) {
    char buf[PATH_MAX];
    ssize_t n = ::readlinkat(fd, "", buf, sizeof buf - 1);
    if (n < 0) return fail(here, errno);
    return std::string(buf, static_cast<size_t>(n));
  }

  static Result<std::string> working_directory() {
    char buf[PATH_MAX];
    if (!::getcwd(buf, sizeof buf))
      return system_error(".", "cannot read the working directory", errno, ErrorKind::internal);
    return std::string(buf);
  }

  // Keeps the first problem met, the one highest up the tree: fixing it may fix the rest.
  void note(const struct stat& st, const std::string& here) {
    if (problem_.empty()) problem_ = trust_problem(st, shown(here), options_.user);
  }

  // The path as the user knows it: beneath a replay root, prefixed with the root.
  std::string shown(const std::string& here) const {
    if (options_.root == "/") return here;
    return here == "/" ? options_.root : cat({options_.root, here});
  }

  Error fail(const std::string& here, int err) {
    std::string doing = err == ENOTDIR ? "a path component is not a directory"
                        : err == ELOOP ? "too many symbolic links, or a link where none may be"
                                       : cat({"cannot open the ", what_});
    if (err == ENOTDIR || err == ELOOP) {
      Error e = bad_input(cat({shown(here), ": ", doing, " (the ", what_, ")"}));
      e.sys_errno = err;
      return e;
    }
    if (err == ENOENT) {
      // The file asked for first, then the component that is missing, when another.
      std::string missing =
          shown(here) == requested_ ? "" : cat({": ", shown(here), " does not exist"});
      Error e = bad_input(cat({requested_, ": no such file (the ", what_, ")", missing}));
      e.sys_errno = err;
      return e;
    }
    return system_error(shown(here), doing, err);
  }

  std::string what_;
  std::string requested_;  // the path asked for, as the user knows it
  const TrustOptions& options_;
  std::vector<Dir> stack_;         // the directories walked into, the root first
  std::deque<std::string> parts_;  // the components still to walk
  int links_ = 0;                  // links followed so far
  std::string problem_;
};

bool is_private_group(gid_t gid, uid_t user) {
  // Debian's sshd rule for user private groups (umask 002 on RHEL, Fedora): the user's own
  // primary group, naming no other member, is the user. NSS takes locks of its own: fork()
  // waits for the look-up (util/fork_safety.h).
  ForkGate gate;
  std::vector<char> buf(16384);
  struct passwd pw {
  }, *pwp = nullptr;
  if (::getpwuid_r(user, &pw, buf.data(), buf.size(), &pwp) != 0 || !pwp || pw.pw_gid != gid)
    return false;
  std::string name = pw.pw_name;
  struct group gr {
  }, *grp = nullptr;
  if (::getgrgid_r(gid, &gr, buf.data(), buf.size(), &grp) != 0 || !grp) return false;
  for (char** m = gr.gr_mem; m && *m; ++m)
    if (name != *m) return false;
  return true;
}

}  // namespace

std::string trust_problem(const struct stat& st, std::string_view path, uid_t user) {
  if (st.st_uid != 0 && st.st_uid != user)
    return cat({path, ": owned by uid ", std::to_string(st.st_uid), ", neither root nor uid ",
                std::to_string(user), " (this process)"});
  if (S_ISLNK(st.st_mode)) return {};  // a link's own mode means nothing
  // A sticky directory (/tmp) lets others add entries but not replace ours: what lies beneath
  // is judged by its owner at the next step.
  bool sticky = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
  if ((st.st_mode & S_IWOTH) && !sticky)
    return cat({path, ": writable by others (mode ", mode_text(st.st_mode), ")"});
  if ((st.st_mode & S_IWGRP) && st.st_gid != 0 && !sticky && !is_private_group(st.st_gid, user))
    return cat({path, ": writable by group ", std::to_string(st.st_gid), " (mode ",
                mode_text(st.st_mode), ")"});
  return {};
}

Result<CheckedFile> open_checked(std::string_view path, std::string_view what,
                                 const TrustOptions& options) {
  return Walk(what, options).run(path);
}

Result<std::string> read_trusted_file(const std::string& path, size_t max_bytes,
                                      std::string_view what, const TrustOptions& options) {
  auto file = open_checked(path, what, options);
  if (!file) return file.error();
  if (!file->untrusted.empty())
    return bad_input(cat({path, ": refused (the ", what, "): ", file->untrusted,
                          "; it steers what anygpu loads and runs, so it and every directory "
                          "above it must be writable only by root or its owner (chmod go-w, "
                          "chown root)"}));
  return read_open_file(file->fd.get(), path, max_bytes);
}

}  // namespace anygpu
