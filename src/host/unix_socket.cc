#include "host/unix_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/strings.h"

namespace anygpu {

Result<UniqueFd> connect_unix_socket(const HostRoot& host, std::string_view path) {
  auto real = host.resolve(path);
  if (!real && real.error().sys_errno)
    return Error{ErrorKind::host, std::strerror(real.error().sys_errno), real.error().sys_errno};
  if (!real) return real.error();
  UniqueFd node(::open(host.outside(*real).c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!node) return Error{ErrorKind::host, std::strerror(errno), errno};
  struct stat st {};
  if (::fstat(node.get(), &st) != 0 || !S_ISSOCK(st.st_mode))
    return host_error("not a unix socket");
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!sock) return host_error(cat({"socket: ", std::strerror(errno)}));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d", node.get());
  if (::connect(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return Error{ErrorKind::host, cat({"connect: ", std::strerror(errno)}), errno};
  return sock;
}

}  // namespace anygpu
