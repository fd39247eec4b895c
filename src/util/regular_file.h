// Reading a file the user named (a config, a contract, a data table): only a regular file is
// read. A FIFO, a device or a socket would block or never end, so it is refused up front.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

// At most `max_bytes` of `path` (callers that must detect "too large" ask for one byte more).
// Missing: bad_input with sys_errno ENOENT and "<path>: no such file (<what>)". Not a regular
// file: bad_input naming what it is. `what` describes the file for messages.
Result<std::string> read_regular_file(const std::string& path, size_t max_bytes,
                                      std::string_view what);

// Opens the regular file `name` (relative to `dir_fd`; AT_FDCWD for a path) for reading. The
// type is read first from an O_PATH descriptor, so a FIFO, socket or device is refused without
// being opened (opening a FIFO waits for a writer, a watchdog arms, a tape rewinds); the file
// then opened is checked to be the one judged. `extra_flags`: O_NOFOLLOW for a walk. `path`
// names the file in errors; `st`, when given, receives its status.
Result<UniqueFd> open_regular_at(int dir_fd, const std::string& name, const std::string& path,
                                 std::string_view what, int extra_flags, struct stat* st = nullptr);

// At most `max_bytes` from an open descriptor (EINTR retried); `path` names it in errors.
Result<std::string> read_open_file(int fd, const std::string& path, size_t max_bytes);

// "a FIFO", "a directory", "a character device" … for messages.
std::string_view file_type_name(unsigned mode);

// True for the errors that say the process or the machine ran out of something — descriptors
// (EMFILE, ENFILE), memory (ENOMEM), space (ENOSPC, EDQUOT) — or that the target is read-only
// (EROFS): never "absent", "permission denied" or an empty answer.
bool is_resource_error(int err);

// The error for a failed system call on `path` (`doing`: "cannot open the registry file"): a
// resource error is ErrorKind::host (exit 3) and says what ran out and what to raise; any other
// is `otherwise` (bad_input when the user named the file). sys_errno is set.
Error system_error(std::string_view path, std::string_view doing, int err,
                   ErrorKind otherwise = ErrorKind::bad_input);

// Resource errors system_error() has made in this process, counted: a caller that drops a
// failed read (a listing taken as empty) cannot then pass the answer off as complete. The CLI
// and the C ABI compare the count before and after a command and fail it when it grew.
uint64_t resource_error_count();
// A file that is not a regular file where a host's regular file belongs (a FIFO as a sysfs
// attribute): the error, counted like resource errors, since callers commonly take a failed
// attribute read as "absent"; the CLI names the first such file once, as a warning.
Error unexpected_file_type(std::string_view path, unsigned mode);
uint64_t unexpected_file_count();
std::string unexpected_file_summary();

// What ran out in the latest one, for that failure: "this process is out of file descriptors
// (limit 16; …)"; the first path it hit is named as well.
std::string resource_error_summary();

}  // namespace anygpu
