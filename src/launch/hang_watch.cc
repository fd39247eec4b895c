#include "launch/hang_watch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "host/process_tree.h"
#include "launch/hang_beats.h"
#include "launch/hang_report.h"
#include "render/json_text.h"
#include "util/strings.h"

namespace anygpu {

namespace {

Error hang_dir_error(const std::string& dir, std::string_view why) {
  return bad_input(cat({"--hang-dir ", escape_control(dir), ": ", why}));
}

// Writable by this process: a probe file is created and removed (access(2) would not see a
// read-only mount or an ACL).
bool can_write_into(const std::string& dir) {
  std::string probe = cat({dir, "/.anygpu-probe-", std::to_string(::getpid())});
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The pids of the launch: only processes in anygpu's own tree are signalled, never a pid a
// beat file names that has since been reused by someone else's process.
bool in_launch(pid_t pid, const std::vector<ProcStat>& tree) {
  return std::any_of(tree.begin(), tree.end(), [pid](const ProcStat& p) { return p.pid == pid; });
}

// Asks every rank for its stacks, then waits up to a second for the dumps to land.
void request_stacks(const std::vector<RankBeat>& ranks, const std::string& dir) {
  auto tree = process_tree(::getpid(), 0);
  std::vector<std::string> expected;
  for (const auto& r : ranks) {
    if (r.beat.signal <= 0 || r.beat.event == "exit" || !in_launch(r.beat.pid, tree)) continue;
    if (::kill(r.beat.pid, r.beat.signal) == 0)
      expected.push_back(cat({dir, "/stacks-rank-", std::to_string(r.beat.rank), ".txt"}));
  }
  for (int i = 0; i < 20; ++i) {
    bool all = std::all_of(expected.begin(), expected.end(), [](const std::string& p) {
      struct stat st {};
      return ::stat(p.c_str(), &st) == 0 && st.st_size > 0;
    });
    if (all) return;
    ::usleep(50000);
  }
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

std::string default_hang_dir(const std::string& cwd) {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return cat({cwd, "/anygpu-hangs/", stamp, "-", std::to_string(::getpid())});
}

Result<std::string> prepare_hang_dir(const std::string& dir) {
  if (dir.empty()) return hang_dir_error(dir, "empty path");
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(dir, ec);
  if (ec) return hang_dir_error(dir, ec.message());
  std::filesystem::create_directories(path, ec);
  if (ec) return hang_dir_error(dir, cat({"cannot be created: ", ec.message()}));
  if (!std::filesystem::is_directory(path, ec)) return hang_dir_error(dir, "not a directory");
  if (!can_write_into(path.string())) return hang_dir_error(dir, "not writable");
  auto beats = read_beats(path.string());
  if (beats && !beats->empty())
    return hang_dir_error(dir,
                          "holds the beats of an earlier launch (rank-*.beat); name an "
                          "empty directory");
  return path.lexically_normal().string();
}

void HangWatch::tick() {
  if (reported_) return;
  auto ranks = read_beats(debug_.dir);
  if (!ranks || ranks->empty()) return;  // a beat being written: judged at the next tick
  auto verdict = judge_hang(*ranks, wall_ns(), debug_.seconds);
  if (!verdict.hang) return;
  reported_ = true;
  request_stacks(*ranks, debug_.dir);
  if (auto again = read_beats(debug_.dir); again) ranks = std::move(again);
  verdict = judge_hang(*ranks, wall_ns(), debug_.seconds);
  if (!verdict.hang) verdict.why = "none now: a rank advanced while the stacks were dumped";
  std::string text = hang_report_text(debug_.dir, *ranks, verdict);
  write_file(cat({debug_.dir, "/hang-report.txt"}), text);
  write_file(cat({debug_.dir, "/hang-report.json"}),
             dump_json(hang_report_json(debug_.dir, *ranks, verdict)) + "\n");
  std::fprintf(stderr, "anygpu: %s", escape_control(text.substr(0, text.find('\n'))).c_str());
  std::fprintf(stderr, "; report %s/hang-report.txt\n", escape_control(debug_.dir).c_str());
}

}  // namespace anygpu
