// gather's copy of one host path beneath the tree, as `cp -a` and `tar` copy it: symlinks as
// links (loops included: a loop is copied, never followed), permission bits kept, contents
// through the redactor. Device nodes, FIFOs and sockets become empty files, as the fixture
// hosts have them (no mknod without privilege); what they were is recorded for the manifest,
// with every file left out or recorded by name only, and why.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gather/redact.h"
#include "host/confined_writer.h"
#include "host/host_root.h"
#include "util/result.h"

namespace anygpu::gather {

// Larger regular files are left out (and listed): what the readers read is small.
inline constexpr size_t kMaxCopiedFileBytes = size_t{8} << 20;
// The kernel's MAXSYMLINKS: a path needing more links than this is not followed further.
inline constexpr size_t kMaxSymlinkDepth = 40;

struct SpecialFile {
  std::string path;
  std::string type;  // "char", "block", "fifo", "socket"
  unsigned mode = 0;
  uint32_t uid = 0, gid = 0;
  std::optional<std::pair<unsigned, unsigned>> device;  // major, minor of a char/block node
};

struct CopyRecord {
  size_t files = 0, links = 0, dirs = 0;
  uint64_t bytes = 0;
  std::vector<SpecialFile> special;                 // copied as empty files
  std::map<std::string, uint64_t> name_only;        // ELF objects: path -> size on the host
  std::map<std::string, std::string> not_copied;    // path -> why its contents are not here
  std::map<std::string, std::string> not_followed;  // link -> why its target is not here
  std::optional<uint64_t> kernel_log_bytes;         // the log device, copied as a file
};

// The host path a walk resolved to; nullopt when it could not be followed to the end.
using Reached = std::optional<std::string>;

class Copier {
 public:
  Copier(const HostRoot& host, const ConfinedDir& tree, Redactor& redactor)
      : host_(host), tree_(tree), redactor_(redactor) {}

  // Recreates `path` and every link on the way to it (each link copied, then its target). The
  // host path it resolves to, or nullopt when it could not be followed to the end (gone, or a
  // link loop); only a failed write to the tree is an error.
  Result<Reached> materialize(const std::string& path);
  // One directory entry without its contents: an empty directory or a symlink.
  Result<bool> materialize_entry(const std::string& path);

  const CopyRecord& record() const { return record_; }

 private:
  Result<Reached> walk(const std::string& path, std::vector<std::string>& chain);
  Result<Reached> follow(const std::string& at, const std::string& dir,
                         std::vector<std::string>& chain);
  Result<bool> link(const std::string& at, const std::string& target);
  Result<bool> copy(const std::string& path, const struct stat& st);
  Result<bool> copy_kernel_log(const std::string& path, unsigned mode);
  Result<bool> write(const std::string& path, const std::string& content, unsigned mode);
  bool is_elf(const std::string& path) const;
  void note_dir(const std::string& path);

  const HostRoot& host_;
  const ConfinedDir& tree_;
  Redactor& redactor_;
  std::set<std::string> dirs_, links_, files_;
  CopyRecord record_;
};

}  // namespace anygpu::gather
