// What both worker modes share: the request channel (fd 0), the reply channel (fd 3) and the
// captured output of the library (fd 1 and 2, a memory file the parent handed over).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "worker/message.h"

namespace anygpu::worker::io {

inline constexpr int kRequestFd = 0;
inline constexpr int kReplyFd = 3;

// Reads fd 0 until a line `end` (or EOF); nullopt on EOF before it.
std::optional<std::string> read_block();
// Reads one line from fd 0; nullopt on EOF.
std::optional<std::string> read_line();
// Writes all of `text` to fd 3; a parent that went away ends the worker.
void reply(std::string_view text);

// Bytes the library wrote to fd 1/2 since the last call (stdio flushed first).
StrayOutput take_output();

}  // namespace anygpu::worker::io
