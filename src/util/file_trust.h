// Files that steer anygpu — the registry ANYGPU_REGISTRY names (it names the libraries the
// worker loads), the host's CDI specs (device nodes and hooks a runtime applies as root) —
// are judged as sudo judges sudoers and sshd's StrictModes judges authorized_keys: the file
// and every directory above it must be changeable only by root or by the user anygpu runs as.
//
// The path is walked one component at a time from an opened directory, and each verdict is
// taken from the descriptor the walk goes on from (fstat), so nothing can be swapped between
// the check and the read; symlinks are followed by the walk itself, each judged by its owner.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

struct TrustOptions {
  // Walk beneath this directory as if it were "/" (a --root replay): absolute links and ".."
  // stay inside it, and directories above it are not judged.
  std::string root = "/";
  // Trusted besides root (uid 0): the effective user, who could change the files anyway.
  uid_t user = ::geteuid();
};

struct CheckedFile {
  UniqueFd fd;  // open for reading (O_NONBLOCK), the file the verdict is about
  struct stat st {};
  // Empty when only root or the user can change what is read; else why not, naming the
  // component: "/etc/cdi: writable by others (mode 0777)", "/x/vendors.yaml: owned by uid 65534".
  std::string untrusted;
};

// Opens `path` (absolute; relative to the working directory when `root` is "/") for reading.
// Only a regular file is opened: a FIFO, device, socket or directory is refused by its type
// without being opened. Errors are bad_input naming the path; sys_errno is set when a system
// call failed (ENOENT: absent), and running out of descriptors or memory is said as such.
Result<CheckedFile> open_checked(std::string_view path, std::string_view what,
                                 const TrustOptions& options = {});

// The rule for one component (file, directory or link), for callers that walk themselves: ""
// when only root or `user` can change it, else why not, naming `path`.
std::string trust_problem(const struct stat& st, std::string_view path, uid_t user);

// The whole file through open_checked, at most `max_bytes`, refused (bad_input) when others can
// change it: "<path>: refused (the <what>): <why>; …".
Result<std::string> read_trusted_file(const std::string& path, size_t max_bytes,
                                      std::string_view what, const TrustOptions& options = {});

}  // namespace anygpu
