// Reading a file the user named (a config, a contract, a data table): only a regular file is
// read. A FIFO, a device or a socket would block or never end, so it is refused up front.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu {

// At most `max_bytes` of `path` (callers that must detect "too large" ask for one byte more).
// Missing: bad_input with sys_errno ENOENT and "<path>: no such file (<what>)". Not a regular
// file: bad_input naming what it is. `what` describes the file for messages.
Result<std::string> read_regular_file(const std::string& path, size_t max_bytes,
                                      std::string_view what);

// "a FIFO", "a directory", "a character device" … for messages.
std::string_view file_type_name(unsigned mode);

}  // namespace anygpu
