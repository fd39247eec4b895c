#include "util/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

namespace anygpu {

std::string_view file_type_name(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    default:
      return "a special file";
  }
}

Result<std::string> read_regular_file(const std::string& path, size_t max_bytes,
                                      std::string_view what) {
  if (path.empty()) return bad_input(cat({"an empty path was given for the ", what}));
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    Error e = bad_input(err == ENOENT
                            ? cat({path, ": no such file (", what, ")"})
                            : cat({path, ": cannot open the ", what, ": ", std::strerror(err)}));
    e.sys_errno = err;
    return e;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return bad_input(
        cat({path, ": is ", file_type_name(st.st_mode), ", not a regular file (the ", what, ")"}));
  }
  std::string text;
  text.resize(max_bytes);
  size_t have = 0;
  while (have < max_bytes) {
    ssize_t n = ::read(fd, text.data() + have, max_bytes - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return bad_input(cat({path, ": read error: ", std::strerror(err)}));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(have);
  return text;
}

}  // namespace anygpu
