#include "util/atomic_file.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

namespace anygpu {

namespace {
Error errno_error(std::string_view what, const std::string& path) {
  return internal_error(cat({path, ": ", what, ": ", std::strerror(errno)}));
}
}  // namespace

void remove_tree(const std::string& path) {
  ::nftw(
      path.c_str(),
      [](const char* p, const struct stat*, int type, struct FTW*) {
        return type == FTW_DP ? ::rmdir(p) : ::unlink(p);
      },
      16, FTW_DEPTH | FTW_PHYS);
}

Result<bool> make_directories(const std::string& path, unsigned mode) {
  if (path.empty()) return true;
  std::string cur;
  for (auto part : split(path, '/')) {
    cur += part;
    cur += '/';
    if (part.empty() || part == ".") continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST) return errno_error("mkdir", cur);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return internal_error(path + ": not a directory");
  return true;
}

Result<bool> write_file_atomic(const std::string& path, std::string_view content, unsigned mode,
                               bool sync) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (auto made = make_directories(dir); !made) return made.error();
  std::string tmp = dir + "/." + base + ".tmp" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return errno_error("create", tmp);
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      auto err = errno_error("write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return err;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if ((sync && ::fsync(fd) != 0) || ::close(fd) != 0) {
    auto err = errno_error("sync", tmp);
    ::unlink(tmp.c_str());
    return err;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    auto err = errno_error("rename", path);
    ::unlink(tmp.c_str());
    return err;
  }
  return true;
}

}  // namespace anygpu
