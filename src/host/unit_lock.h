// Advisory locks on the units `anygpu run` hands a command (a device; a partition of one), so
// that two runs on one machine never get the same unit. One file per unit in a lock directory,
// locked with flock(2): the kernel releases the lock when the last descriptor of it closes, so a
// holder killed outright (SIGKILL, the OOM killer) releases at once, and a descriptor without
// FD_CLOEXEC keeps the lock across execve for the command's whole life.
//
// Why flock and not fcntl (POSIX) locks: an fcntl lock belongs to the process and is dropped
// when that process closes any descriptor of the file, and is not inherited by children, so a
// torchrun tree or a container engine client could not keep it; an flock lock belongs to the
// open file description, which every exec'd image and forked child shares.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

// The key of a unit, as `detect` names it: "0000:18:00.0" for a device, "0000:18:00.0/3" for
// its partition 3. Bus ids are lower-case hex "DDDD:BB:DD.F" (a domain of 4 to 8 digits).
std::string unit_lock_key(std::string_view bus_id, std::optional<int> partition = {});
bool valid_unit_lock_key(std::string_view key);

// The file holding a key's lock: "0000:18:00.0.lock", "0000:18:00.0@3.lock" ('/' cannot be in a
// file name); and back, nullopt for a name that is no lock file (anything else in the directory
// is ignored).
std::string lock_file_name(std::string_view key);
std::optional<std::string> key_of_lock_file(std::string_view name);

// Where the locks live. `components` are created beneath `base` when missing, with `mode`.
struct LockDirectory {
  std::string path;                     // base + components, for messages
  std::string base;                     // an existing directory (followed if a link)
  std::vector<std::string> components;  // each created, never followed
  mode_t mode = 0700;
  std::string origin;  // how it was chosen, for -v: "ANYGPU_LOCK_DIR", "root", "XDG_RUNTIME_DIR"…
};

// ANYGPU_LOCK_DIR when set (an absolute path); else /run/anygpu/locks for root (0755); else
// $XDG_RUNTIME_DIR/anygpu/locks (0700); without XDG_RUNTIME_DIR (no login session: cron, ssh
// without pam_systemd), /run/user/UID when it is the user's, else /tmp/anygpu-UID/locks.
Result<LockDirectory> lock_directory(const std::map<std::string, std::string>& env, uid_t euid);

// Opens the directory, creating what is missing when `create`. Refused (bad_input naming the
// path) when a component is a symbolic link or not a directory, or when it or the base is owned
// by neither root nor `euid`, or writable by others without the sticky bit (file_trust.h's
// rule). Absent and !create: an empty descriptor (no run has locked anything there).
Result<UniqueFd> open_lock_directory(const LockDirectory& dir, bool create, uid_t euid);

// A held lock: released when this object (and every process that inherited the descriptor)
// closes it.
struct UnitLock {
  std::string key;
  UniqueFd fd;
};

// A partition's run holds its partition's key exclusively and its device's key shared; a whole
// device's run holds the device's key exclusively. So two partitions of one device are held
// together, but never a device and any of its partitions (whichever way its partitioning
// changed between the two runs' discovery).
enum class LockMode { exclusive, shared };

// Takes `key`'s lock without waiting: nullopt when another open file description holds it.
// The file is opened with O_NOFOLLOW and O_NONBLOCK, never truncated on open: only a regular
// file with one link, owned by `euid`, is rewritten (with the holder's pid), so a link planted
// in a shared directory cannot make anygpu write elsewhere. The descriptor is close-on-exec
// until keep_across_exec(). A shared lock writes no pid (it has several holders).
Result<std::optional<UnitLock>> try_lock_unit(int dir_fd, const std::string& dir_path,
                                              const std::string& key, uid_t euid,
                                              LockMode mode = LockMode::exclusive);

// Clears FD_CLOEXEC, so that the exec'd command (or engine client, or torchrun's tree) holds it.
Result<bool> keep_across_exec(const UnitLock& lock);

// One line of /proc/locks ("1: FLOCK  ADVISORY  WRITE 4242 00:1a:1234 0 EOF"). `blocked`: a
// waiter's line ("1: -> FLOCK …"), not a holder.
struct ProcLock {
  std::string kind;  // FLOCK, POSIX, OFDLCK, LEASE, …
  bool blocked = false;
  bool write = false;
  long pid = 0;  // as this process's pid namespace sees it; 0 or -1 when it cannot
  unsigned dev_major = 0, dev_minor = 0;
  unsigned long long inode = 0;
};
// Every well-formed line; a malformed one is skipped (the kernel's format has been stable since
// 2.6, but a truncated read must not invent a holder).
std::vector<ProcLock> parse_proc_locks(std::string_view text);

struct LockHolder {
  std::string key;
  std::optional<long> pid;  // absent when neither /proc/locks nor the file tells
  std::optional<std::string> command;
  bool shared = false;  // a shared lock: a device whose partitions runs hold
};

// The units locked in the directory now, by key: the flock holders /proc/locks lists for the
// lock files' inodes (kernel truth: no stale record, and nothing is locked to find out, which
// would make a concurrent run see a conflict). `proc_locks` is /proc/locks' text.
std::map<std::string, LockHolder> current_lock_holders(int dir_fd, std::string_view proc_locks);

// current_lock_holders() with this machine's /proc/locks, commands from /proc/PID/comm.
std::map<std::string, LockHolder> read_lock_holders(int dir_fd);

// The holder of `key`, whose lock a try_lock_unit() just found taken: from `holders`, else the
// pid the holder wrote into the file (a kernel without /proc/locks, a pid namespace that hides
// the holder).
LockHolder holder_of(int dir_fd, const std::string& key,
                     const std::map<std::string, LockHolder>& holders);

// "pid 4242 (python3)", "pid 4242", or "an unknown process".
std::string holder_text(const LockHolder& holder);

}  // namespace anygpu
