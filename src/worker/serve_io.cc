#include "worker/serve_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "worker/message.h"
#include "worker/process.h"

namespace anygpu::worker::io {

namespace {
std::string g_pending;  // bytes read, from g_consumed on not yet handed out
size_t g_consumed = 0;
off_t g_output_seen = 0;
}  // namespace

std::optional<std::string> read_line() {
  char chunk[4096];
  for (;;) {
    if (auto nl = g_pending.find('\n', g_consumed); nl != std::string::npos) {
      std::string line(g_pending.data() + g_consumed, nl + 1 - g_consumed);
      g_consumed = nl + 1;
      return line;
    }
    if (g_pending.size() - g_consumed > kMaxLine) return std::nullopt;
    ssize_t n = ::read(kRequestFd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    g_pending.append(chunk, static_cast<size_t>(n));
  }
}

std::optional<std::string> read_block() {
  std::string block;
  while (auto line = read_line()) {
    block += *line;
    if (*line == kEndLine) return block;
    if (block.size() > kMaxMessage) return std::nullopt;
  }
  return std::nullopt;
}

void reply(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(kReplyFd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(0);  // nobody is listening any more
    text.remove_prefix(static_cast<size_t>(n));
  }
}

StrayOutput take_output() {
  std::fflush(stdout);
  std::fflush(stderr);
  StrayOutput out;
  off_t end = ::lseek(1, 0, SEEK_END);
  if (end <= g_output_seen) return out;
  out.bytes = static_cast<uint64_t>(end - g_output_seen);
  char buf[512];
  ssize_t n = ::pread(1, buf, sizeof buf, g_output_seen);
  if (n > 0) out.excerpt = excerpt_of(std::string_view(buf, static_cast<size_t>(n)));
  if (out.excerpt.empty()) out.excerpt.push_back('?');  // bytes, none printable
  // Start over, so a library that prints on every call cannot grow the memory file forever
  // (fd 1 and 2 share one file offset).
  if (::ftruncate(1, 0) == 0 && ::lseek(1, 0, SEEK_SET) == 0) {
    g_output_seen = 0;
  } else {
    g_output_seen = end;
  }
  return out;
}

}  // namespace anygpu::worker::io
