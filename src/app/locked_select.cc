#include "app/locked_select.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "util/strings.h"

namespace anygpu {

namespace {

using Clock = std::chrono::steady_clock;
using Holders = std::map<std::string, LockHolder>;

// A `devices:` list or a Slurm allocation names the units: locked ones are waited for, never
// swapped for others.
bool names_units(const SelectOutcome& o) {
  return !o.config.list.empty() || o.inputs.allocation_governs;
}

std::string held_text(const Holders& held) {
  std::vector<std::string> parts;
  for (const auto& [key, h] : held) parts.push_back(cat({key, " by ", holder_text(h)}));
  return join(parts, ", ");
}

struct Attempt {
  std::optional<LockedSelection> locked;
  Holders held;  // units this run needs or could have used, held by others
};

// Try-locks every key of `selection`; on a conflict releases what it took. `held` gets each
// key found held (all of them when `all`, else the first).
std::optional<std::vector<UnitLock>> lock_all(const Selection& selection, int dir_fd,
                                              const std::string& dir_path, uid_t euid, bool all,
                                              const Holders& known, Holders& held, Error& error) {
  std::vector<UnitLock> locks;
  bool conflict = false;
  for (const auto& [key, mode] : selection_lock_plan(selection)) {
    auto lock = try_lock_unit(dir_fd, dir_path, key, euid, mode);
    if (!lock) {
      error = lock.error();
      return std::nullopt;
    }
    if (*lock) {
      locks.push_back(std::move(**lock));
      continue;
    }
    held[key] = holder_of(dir_fd, key, known);
    conflict = true;
    if (!all) break;
  }
  if (conflict) return std::nullopt;
  return locks;
}

// One round: select around the units held now, lock, and on a conflict select again without
// the unit found held (at most once per device: each round excludes one more).
Result<Attempt> attempt(const SelectOutcome& o, int dir_fd, const std::string& dir_path, uid_t euid,
                        const Registry& registry) {
  Attempt a;
  const Selection& want = *o.selection;
  auto known = read_lock_holders(dir_fd);
  const bool fixed = names_units(o);
  SelectInputs in = o.inputs;
  std::set<std::string> vendor_buses;
  for (const auto& d : o.inventory.devices)
    if (d.vendor == want.vendor) vendor_buses.insert(unit_lock_key(d.pci.address.str()));
  for (const auto& [key, h] : known)
    // A shared holder of a device holds one of its partitions, whose own key says which.
    if (!h.shared && vendor_buses.count(key.substr(0, key.find('/')))) {
      in.unavailable[key] = cat({"locked by ", holder_text(h)});
      if (!fixed) a.held[key] = h;
    }
  for (size_t round = 0; round <= o.inventory.devices.size(); ++round) {
    Selection chosen = want;
    if (!fixed) {
      auto again = select_devices(o.inventory, o.config, in, registry);
      // Fewer devices, another vendor or the CPU because others are busy is no selection.
      if (!again || again->vendor != want.vendor || again->devices.size() != want.devices.size())
        return a;
      chosen = std::move(*again);
    }
    Error error;
    Holders found;
    auto locks = lock_all(chosen, dir_fd, dir_path, euid, fixed, known, found, error);
    if (!error.message.empty()) return error;
    if (locks) {
      LockedSelection done{std::move(chosen), std::move(*locks), {}};
      if (!a.held.empty())
        done.notes.push_back(cat({"chose around devices other runs hold: ", held_text(a.held)}));
      a.locked = std::move(done);
      return a;
    }
    for (auto& [key, h] : found) {
      in.unavailable[key] = cat({"locked by ", holder_text(h)});
      a.held[key] = h;
    }
    if (fixed) return a;
  }
  return a;
}

std::string busy_message(const SelectOutcome& o, const Holders& held) {
  const Selection& want = *o.selection;
  std::string what = o.inputs.allocation_governs ? "devices of the Slurm allocation"
                     : !o.config.list.empty()
                         ? "listed devices"
                         : cat({std::to_string(want.devices.size()), " ", want.vendor, " device",
                                want.devices.size() == 1 ? "" : "s"});
  std::string holders = held.empty() ? std::string("(the holders ended meanwhile)")
                                     : cat({"held by other runs: ", held_text(held)});
  return cat({"devices busy: the run needs ", what, " and too few are free; ", holders,
              " (--wait[=DURATION] queues for them, --no-lock does not lock)"});
}

std::string duration_text(Clock::duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ms) / 1000.0);
  return buf;
}

}  // namespace

bool locks_apply(bool real_root, const std::map<std::string, std::string>& env) {
  auto it = env.find("ANYGPU_LOCK_DIR");
  return real_root || (it != env.end() && !it->second.empty());
}

Result<std::optional<LockHolders>> lock_holders_now(bool real_root,
                                                    const std::map<std::string, std::string>& env,
                                                    uid_t euid) {
  using Out = std::optional<LockHolders>;
  if (!locks_apply(real_root, env)) return Out();
  auto dir = lock_directory(env, euid);
  if (!dir) return dir.error();
  auto fd = open_lock_directory(*dir, false, euid);
  if (!fd) return fd.error();
  if (!*fd) return Out(LockHolders());
  return Out(read_lock_holders(fd->get()));
}

std::vector<std::string> selection_lock_keys(const Selection& selection) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < selection.devices.size(); ++i) {
    const auto* p = selection.partition_of(i);
    keys.push_back(unit_lock_key(selection.devices[i].pci.address.str(),
                                 p ? std::optional<int>(p->index) : std::nullopt));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<std::pair<std::string, LockMode>> selection_lock_plan(const Selection& selection) {
  std::map<std::string, LockMode> plan;
  for (const auto& key : selection_lock_keys(selection)) plan[key] = LockMode::exclusive;
  for (size_t i = 0; i < selection.devices.size(); ++i)
    if (selection.partition_of(i))
      plan.emplace(unit_lock_key(selection.devices[i].pci.address.str()), LockMode::shared);
  return {plan.begin(), plan.end()};
}

Result<LockOutcome> lock_selection(const SelectOutcome& outcome, const LockDirectory& directory,
                                   const LockWait& wait, uid_t euid, const Registry& registry) {
  LockOutcome out;
  auto dir = open_lock_directory(directory, true, euid);
  if (!dir) return dir.error();
  const auto start = Clock::now();
  std::minstd_rand jitter(static_cast<unsigned>(::getpid()) ^
                          static_cast<unsigned>(start.time_since_epoch().count()));
  bool said_waiting = false;
  for (;;) {
    auto a = attempt(outcome, dir->get(), directory.path, euid, registry);
    if (!a) return a.error();
    if (a->locked) {
      a->locked->notes.push_back(
          cat({"locked ", join(selection_lock_keys(a->locked->selection), ", "), " in ",
               directory.path, " (", directory.origin, ")"}));
      if (said_waiting)
        a->locked->notes.push_back(cat({"waited ", duration_text(Clock::now() - start)}));
      out.locked = std::move(a->locked);
      return out;
    }
    auto elapsed = Clock::now() - start;
    if (!wait.wait || (wait.limit && elapsed >= *wait.limit)) {
      out.busy = busy_message(outcome, a->held);
      if (wait.wait) out.busy = cat({"waited ", duration_text(elapsed), ": ", out.busy});
      return out;
    }
    if (!said_waiting && wait.on_wait)
      wait.on_wait(cat({"waiting: ", busy_message(outcome, a->held)}));
    said_waiting = true;
    Clock::duration pause =
        wait.poll + std::chrono::milliseconds(jitter() % (wait.poll.count() + 1));
    if (wait.limit) pause = std::min<Clock::duration>(pause, *wait.limit - elapsed);
    std::this_thread::sleep_for(pause);
  }
}

Result<std::optional<std::chrono::milliseconds>> parse_wait_duration(std::string_view text) {
  using Ms = std::optional<std::chrono::milliseconds>;
  auto t = trim(text);
  if (t.empty()) return Ms();
  double unit = 1.0;
  if (t.back() == 's' || t.back() == 'm' || t.back() == 'h') {
    unit = t.back() == 's' ? 1.0 : t.back() == 'm' ? 60.0 : 3600.0;
    t.remove_suffix(1);
  }
  auto v = parse_double(t);
  if (t.empty() || t.back() == ' ' || t.back() == '\t' || !v || !std::isfinite(*v) || *v < 0 ||
      *v * unit > 366.0 * 86400)
    return bad_input(cat({"--wait=", escape_control(text),
                          ": expected a duration such as 90, 90s, 5m or 2h (at most a year)"}));
  return Ms(std::chrono::milliseconds(static_cast<long long>(std::llround(*v * unit * 1000))));
}

}  // namespace anygpu
