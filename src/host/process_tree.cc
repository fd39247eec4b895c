#include "host/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "util/strings.h"
#include "util/unique_fd.h"

namespace anygpu {

namespace {

using Clock = std::chrono::steady_clock;

// How often a waiting sweep looks for processes forked since the last look.
constexpr auto kRescan = std::chrono::milliseconds(100);

// The fields after the command name: state is field 3 of proc(5), start time field 22.
constexpr size_t kStateField = 0, kPpidField = 1, kPgidField = 2, kStartField = 19;

std::optional<pid_t> pid_value(std::string_view text, pid_t min) {
  auto v = parse_int(text);
  if (!v || *v < min || *v > INT_MAX) return std::nullopt;
  return static_cast<pid_t>(*v);
}

std::optional<ProcStat> read_proc_stat(pid_t pid) {
  char path[48];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[1024];
  ssize_t n;
  do {
    n = ::read(fd.get(), buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  return parse_proc_stat(std::string_view(buf, static_cast<size_t>(n)));
}

bool dead(const ProcStat& p) {
  return p.state == 'Z' || p.state == 'X' || p.state == 'x';
}

std::vector<ProcStat> all_processes() {
  std::vector<ProcStat> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (auto* e = ::readdir(d))
    if (auto pid = pid_value(e->d_name, 1))
      if (auto st = read_proc_stat(*pid)) out.push_back(*st);
  ::closedir(d);
  return out;
}

// One process being ended, pinned by a pidfd where the kernel has them (5.3+) so that a
// recycled pid is never signalled; without one, by its start time.
struct Target {
  ProcStat stat;
  UniqueFd pidfd;

  bool same_process() const {
    auto now = read_proc_stat(stat.pid);
    return now && now->start == stat.start && !dead(*now);
  }
  bool gone() const {
    if (!pidfd) return !same_process();
    pollfd p{pidfd.get(), POLLIN, 0};
    return ::poll(&p, 1, 0) != 0;  // readable once it has exited; an error: gone too
  }
  void send(int sig) const {
    if (pidfd) {
      ::syscall(SYS_pidfd_send_signal, pidfd.get(), sig, nullptr, 0);
    } else if (same_process()) {
      ::kill(stat.pid, sig);
    }
  }
};

class Sweep {
 public:
  Sweep(pid_t root, pid_t pgid) : root_(root), pgid_(pgid) {}

  // Finds processes not seen before; returns how many, and how many of them are outside the
  // group (only those can fork past a SIGSTOP sent to the group).
  std::pair<size_t, size_t> refresh() {
    size_t added = 0, outside = 0;
    for (const auto& m : process_tree(root_, pgid_)) {
      auto it = targets_.find(m.pid);
      if (it != targets_.end() && it->second.stat.start == m.start) continue;
      Target t{m, UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, m.pid, 0)))};
      // Opened after the scan: it must still be the process the scan saw.
      if (t.pidfd && !t.same_process()) continue;
      targets_.insert_or_assign(m.pid, std::move(t));
      ++added;
      if (pgid_ <= 0 || m.pgid != pgid_) ++outside;
    }
    return {added, outside};
  }

  void signal_all(int sig) {
    for (const auto& [pid, t] : targets_)
      if (!t.gone()) t.send(sig);
    signal_group(sig);
  }

  // The root and its group, should /proc be unreadable, and for a member forked after the
  // scan. Never the caller itself or its own group (a child not given one of its own).
  void signal_group(int sig) const {
    if (root_ != ::getpid()) ::kill(root_, sig);
    if (pgid_ > 0 && pgid_ != ::getpgrp()) ::kill(-pgid_, sig);
  }

  // Until one target exits (its pidfd turns readable) or `until`.
  void sleep_until_one_exits(Clock::time_point until) const {
    std::vector<pollfd> fds;
    bool polled_all = true;
    for (const auto& [pid, t] : targets_) {
      if (t.gone()) continue;  // its pidfd stays readable
      if (t.pidfd)
        fds.push_back({t.pidfd.get(), POLLIN, 0});
      else
        polled_all = false;
    }
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    ms = std::clamp<int64_t>(ms, 0, polled_all ? 1000 : 5);
    if (fds.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    } else {
      ::poll(fds.data(), fds.size(), static_cast<int>(ms));
    }
  }

  bool all_gone() const {
    for (const auto& [pid, t] : targets_)
      if (!t.gone()) return false;
    return true;
  }

  // Waits until every target has exited or `until`; rescans now and then so that a process
  // forked meanwhile gets `sig` too.
  void wait(Clock::time_point until, int sig) {
    auto next_scan = Clock::now() + kRescan;
    for (;;) {
      auto now = Clock::now();
      if (all_gone() || now >= until) return;
      if (now >= next_scan) {
        if (refresh().first > 0 && sig) signal_all(sig);
        next_scan = now + kRescan;
      }
      sleep_until_one_exits(std::min(until, next_scan));
    }
  }

  // Stops every process of the tree: the group at once (a signal to a group cannot miss a
  // member that forks meanwhile), then each descendant outside it, until a scan finds no new
  // one that could still have forked.
  void freeze() {
    signal_group(SIGSTOP);
    for (int round = 0; round < 16; ++round) {
      auto [added, outside] = refresh();
      signal_all(SIGSTOP);
      if (outside == 0) return;
    }
  }

 private:
  pid_t root_, pgid_;
  std::map<pid_t, Target> targets_;
};

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  auto open = text.find(" (");
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  ProcStat st;
  auto pid = pid_value(text.substr(0, open), 1);
  if (!pid) return std::nullopt;
  st.pid = *pid;
  auto rest = text.substr(close + 1);
  if (rest.empty() || rest.front() != ' ') return std::nullopt;
  auto fields = split(trim(rest), ' ');
  if (fields.size() <= kStartField) return std::nullopt;
  auto state = fields[kStateField];
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (state.size() != 1 || !letter(state[0])) return std::nullopt;
  st.state = state[0];
  auto ppid = pid_value(fields[kPpidField], 0);
  auto pgid = pid_value(fields[kPgidField], 0);
  auto start = parse_uint(fields[kStartField]);
  if (!ppid || !pgid || !start) return std::nullopt;
  st.ppid = *ppid;
  st.pgid = *pgid;
  st.start = *start;
  return st;
}

std::vector<ProcStat> process_tree(pid_t root, pid_t pgid) {
  auto all = all_processes();
  std::multimap<pid_t, const ProcStat*> children;
  for (const auto& p : all) children.emplace(p.ppid, &p);
  std::vector<pid_t> queue{root};
  for (const auto& p : all)
    if (pgid > 0 && p.pgid == pgid) queue.push_back(p.pid);
  std::set<pid_t> seen;
  std::vector<ProcStat> out;
  const pid_t self = ::getpid();
  for (size_t i = 0; i < queue.size(); ++i) {
    pid_t pid = queue[i];
    if (!seen.insert(pid).second) continue;
    for (auto [it, end] = children.equal_range(pid); it != end; ++it)
      queue.push_back(it->second->pid);
  }
  for (const auto& p : all)
    if (seen.count(p.pid) && p.pid != self && !dead(p)) out.push_back(p);
  return out;
}

void end_process_tree(pid_t root, pid_t pgid, std::chrono::milliseconds grace) {
  // Everything found and stopped first: a parent that died of the SIGTERM before the scan
  // would hand its children to init, out of the tree. Pinned by pidfds, they stay targets.
  Sweep sweep(root, pgid);
  sweep.freeze();
  if (grace.count() > 0) {
    sweep.signal_all(SIGTERM);
    sweep.signal_all(SIGCONT);  // stopped, none could act on it
    sweep.wait(Clock::now() + grace, SIGTERM);
    sweep.freeze();
  }
  sweep.signal_all(SIGKILL);
  sweep.wait(Clock::now() + std::chrono::seconds(1), SIGKILL);
}

}  // namespace anygpu
