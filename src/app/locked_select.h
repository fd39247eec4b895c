// `anygpu run`'s selection under locks: the units chosen are locked (host/unit_lock.h) before
// the command starts, and a unit another run holds is chosen around (a count of devices) or
// waited for (an explicit `devices:` list or a Slurm allocation: never swapped), so that two
// runs never get the same unit. Selecting and locking race-free: each unit is try-locked in
// bus-id order; on a conflict the selection is made again without the units found held, at most
// once per device, and only a selection of the same vendor and the same number of devices as
// the unrestricted one counts (a run never falls back to fewer devices or to the CPU because
// others are busy).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/on_host.h"
#include "host/unit_lock.h"

namespace anygpu {

struct LockWait {
  bool wait = false;                                // --wait: queue until the units are free
  std::optional<std::chrono::milliseconds> limit;   // --wait=DURATION; absent: no limit
  std::chrono::milliseconds poll{100};              // between attempts (plus up to as much jitter)
  std::function<void(const std::string&)> on_wait;  // told once, when the waiting starts
};

struct LockedSelection {
  Selection selection;
  std::vector<UnitLock> locks;
  std::vector<std::string> notes;  // why (for -v)
};

// Either the selection with its locks, or `busy`: why not (the units held, naming each holder).
struct LockOutcome {
  std::optional<LockedSelection> locked;
  std::string busy;
};

// `outcome` is select_on_host()'s, with a selection. Errors: the lock directory refused or
// unusable.
Result<LockOutcome> lock_selection(const SelectOutcome& outcome, const LockDirectory& directory,
                                   const LockWait& wait, uid_t euid,
                                   const Registry& registry = Registry::builtin());

// "30", "30s", "5m", "2h", "1.5h": a --wait duration (bad_input otherwise). Empty: no limit.
Result<std::optional<std::chrono::milliseconds>> parse_wait_duration(std::string_view text);

// Whether runs lock in a directory for this host: at the real root, or when ANYGPU_LOCK_DIR
// names one. A replayed host (--root) has other devices under the same bus ids, so it locks
// only where told (as the tests do).
bool locks_apply(bool real_root, const std::map<std::string, std::string>& env);

using LockHolders = std::map<std::string, LockHolder>;
// The units locked now where `run` would lock them, for `select -v` and `ps`; nullopt when no
// lock directory applies. Reads only: creates nothing, locks nothing.
Result<std::optional<LockHolders>> lock_holders_now(bool real_root,
                                                    const std::map<std::string, std::string>& env,
                                                    uid_t euid);

// The keys of a selection's units, sorted: a device's bus id, a partition's "<bus id>/<index>".
std::vector<std::string> selection_lock_keys(const Selection& selection);
// What a run locks, sorted by key (the order every run locks in): each unit's key exclusively,
// and the device of each partition shared (host/unit_lock.h LockMode).
std::vector<std::pair<std::string, LockMode>> selection_lock_plan(const Selection& selection);

}  // namespace anygpu
