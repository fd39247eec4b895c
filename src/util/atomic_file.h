// Nothing half-written: content goes to a temporary file beside the target, then rename(2).
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu {

// Writes `content` to `path` atomically, creating parent directories. `mode` as for open(2).
// `sync` = false skips fsync, for files inside a tree that is itself renamed into place.
Result<bool> write_file_atomic(const std::string& path, std::string_view content,
                               unsigned mode = 0644, bool sync = true);

// rm -rf, for a temporary tree this process made. Symlinks are removed, never followed.
void remove_tree(const std::string& path);

// mkdir -p.
Result<bool> make_directories(const std::string& path, unsigned mode = 0755);

}  // namespace anygpu
