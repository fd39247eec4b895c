// The one write path. Every file anygpu writes (CDI specs, host-init's files, init's scaffold,
// gather's tree, gres.conf, NFD feature files) goes through a ConfinedDir, so that a link
// planted beneath the target can never carry a write somewhere else — HostRoot confines reads
// the same way.
//
// - Parents are resolved from a directory descriptor, never from a path string: openat2(2)
//   with RESOLVE_BENEATH / RESOLVE_NO_SYMLINKS (retried on EAGAIN); on kernels without openat2
//   a component-by-component O_NOFOLLOW|O_DIRECTORY walk (stricter: it follows no link at all).
//   Missing directories are created with mkdirat(2) on the already-confined parent.
// - A file is written to a temporary beside it, created O_CREAT|O_EXCL|O_NOFOLLOW under a name
//   no one can predict (getrandom), fsynced, renamed over the target with renameat(2), and the
//   directory fsynced: readers see the old file or the new one, never half of one.
// - The writer holds an flock on its temporary while it lives. Temporaries of our own naming
//   pattern whose lock is free belong to a killed run and are removed by the next write of the
//   same name; nothing else is ever removed.
// - A refused path is a bad_input error (exit 2) naming the path and the link.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

enum class Confinement {
  // The real root "/": parents resolve as the system resolves them (nothing lies outside "/").
  system,
  // A staged root (`--root DIR`): links that stay beneath DIR are followed; one that leaves it
  // (an absolute target, or ".." above DIR) refuses the write.
  beneath,
  // A directory the command fills (init DIR, gather's tree, an --output file's directory): no
  // link beneath it is followed.
  no_symlinks,
};

struct WriteOptions {
  unsigned mode = 0644;  // as for open(2), before the umask
  bool sync = true;      // fsync the file and its directory
  // false: create the file in place (O_EXCL), for a tree that is itself renamed into place.
  bool atomic = true;
};

class ConfinedDir {
 public:
  // Opens `dir` as the caller named it (links in the caller's own path are the caller's),
  // creating it and its missing parents when `create`.
  static Result<ConfinedDir> open(const std::string& dir, Confinement how, bool create = false);

  const std::string& path() const { return path_; }
  // "DIR/rel", for messages.
  std::string show(std::string_view rel) const;

  // `rel` is relative to the directory; a leading "/" is ignored ("/etc/x" = "etc/x"). ".."
  // components are refused.
  Result<bool> write_file(std::string_view rel, std::string_view content,
                          WriteOptions options = {}) const;
  // The file at `rel` itself (a link there is not followed: it is what a write would replace).
  Result<std::string> read_file(std::string_view rel, size_t max_bytes = 1 << 20) const;
  Result<bool> make_dirs(std::string_view rel) const;
  // A symbolic link at `rel` (an existing entry there is left as it is).
  Result<bool> make_symlink(std::string_view rel, const std::string& target) const;
  // Whether a write to `rel` would be allowed: existing parents are confined (missing ones would
  // be created). Lets a command refuse before it writes its first file.
  Result<bool> check(std::string_view rel) const;
  // Whether an entry (of any type, a link included) is at `rel`, reached through confined
  // parents; false also when a parent is refused.
  bool exists(std::string_view rel) const;

  // The directory `rel`'s entries ("." and ".." left out); links are not followed (a link is
  // listed as not regular). A cache bounds itself with these.
  struct Entry {
    std::string name;
    bool regular = false;
    int64_t mtime_ns = 0;
    uint64_t size = 0;
  };
  Result<std::vector<Entry>> list(std::string_view rel) const;
  // Removes the regular file at `rel`; false (nothing done) when what is there is no regular
  // file or nothing is there.
  Result<bool> remove_file(std::string_view rel) const;
  // Renames the regular file at `rel` to `new_name` in the same directory (replacing what is
  // there); false (nothing done) when what is at `rel` is no regular file.
  Result<bool> rename_file(std::string_view rel, std::string_view new_name) const;

 private:
  friend class StagedTree;
  ConfinedDir(std::string path, Confinement how, UniqueFd fd);

  struct Parent;
  Result<UniqueFd> open_dir(std::string_view rel, bool create) const;
  Result<Parent> open_parent(std::string_view rel, bool create) const;

  std::string path_;
  Confinement how_ = Confinement::no_symlinks;
  std::shared_ptr<const UniqueFd> fd_;  // O_RDONLY|O_DIRECTORY; shared by copies
};

// Writes one file at a path the user named (`--output FILE`): its directory as named (created
// when missing), the file replaced atomically.
Result<bool> write_named_file(const std::string& path, std::string_view content,
                              unsigned mode = 0644);

// A directory tree that appears whole at `dest` or not at all (gather). It is built in a
// directory beside `dest` with an unpredictable name, locked while this process lives, and
// renamed onto `dest` by commit(); `dest` must be absent or an empty directory (which the
// rename replaces; it is never removed beforehand). Stale trees of killed runs are removed.
class StagedTree {
 public:
  static Result<std::unique_ptr<StagedTree>> begin(const std::string& dest);
  ~StagedTree();  // removes the tree unless committed
  StagedTree(const StagedTree&) = delete;
  StagedTree& operator=(const StagedTree&) = delete;

  const ConfinedDir& tree() const { return tree_; }
  Result<bool> commit();

 private:
  StagedTree(std::string dest, ConfinedDir parent, std::string base, std::string temp,
             ConfinedDir tree);

  std::string dest_;
  ConfinedDir parent_;
  std::string base_, temp_;
  ConfinedDir tree_;
  bool committed_ = false;
};

// The names this module gives its temporaries, for `name` in one directory (tests and docs).
std::string temp_file_prefix(std::string_view name);
std::string staged_tree_prefix(std::string_view name);

namespace testing_hooks {
// Tests: false exercises the component walk that kernels without openat2 get.
void confined_writer_use_openat2(bool use);
}  // namespace testing_hooks

}  // namespace anygpu
