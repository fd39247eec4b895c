#include "gather/gather.h"

#include <sys/stat.h>

#include <set>

#include "health/health.h"
#include "host/confined_writer.h"
#include "host/paths.h"
#include "metrics/backend.h"
#include "probe/probe.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// "/a/b/../c" -> "/a/c"
std::string normalize(std::string_view path) {
  std::vector<std::string_view> parts;
  for (auto p : split(path, '/')) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(p);
  }
  std::string out;
  for (auto p : parts) out += cat({"/", p});
  return out.empty() ? "/" : out;
}

class Copier {
 public:
  Copier(const HostRoot& host, const ConfinedDir& tree) : host_(host), tree_(tree) {}

  // Recreates `path` beneath dest, following (and copying) every symlink on the way.
  Result<std::string> materialize(const std::string& path, int depth = 0) {
    if (depth > 40) return bad_input(path + ": too many levels of symbolic links");
    std::string cur;
    const std::string normalized = normalize(path);  // `parts` views into it
    auto parts = split(normalized, '/');
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i].empty()) continue;
      std::string next = cat({cur, "/", parts[i]});
      struct stat st {};
      if (::lstat(host_.outside(next).c_str(), &st) != 0) return next;  // vanished: stop here
      bool last = i + 1 == parts.size();
      if (S_ISLNK(st.st_mode)) {
        auto target = host_.read_link(next);
        if (!target) return target.error();
        if (auto made = link(next, *target); !made) return made.error();
        std::string resolved =
            (*target)[0] == '/' ? normalize(*target) : normalize(cat({cur, "/", *target}));
        auto r = materialize(resolved, depth + 1);
        if (!r) return r.error();
        cur = *r;
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        if (auto made = tree_.make_dirs(next); !made) return made.error();
        if (dirs_.insert(next).second) ++summary_.dirs;
      } else if (last) {
        if (auto copied = copy(next, st); !copied) return copied.error();
      }
      cur = next;
    }
    return cur.empty() ? std::string("/") : cur;
  }

  // One directory entry without its contents: an empty directory, a symlink, or an empty
  // file when the file itself was never read.
  Result<bool> materialize_entry(const std::string& path) {
    struct stat st {};
    if (::lstat(host_.outside(path).c_str(), &st) != 0) return true;
    if (S_ISLNK(st.st_mode)) {
      auto target = host_.read_link(path);
      return target ? link(path, *target) : Result<bool>(target.error());
    }
    if (S_ISDIR(st.st_mode)) {
      if (dirs_.insert(path).second) ++summary_.dirs;
      return tree_.make_dirs(path);
    }
    return true;
  }

  GatherSummary summary() const { return summary_; }

 private:
  Result<bool> link(const std::string& at, const std::string& target) {
    if (!links_.insert(at).second) return true;
    if (auto made = tree_.make_symlink(at, target); !made) return made.error();
    ++summary_.links;
    return true;
  }

  Result<bool> copy(const std::string& path, const struct stat& st) {
    if (!files_.insert(path).second) return true;
    std::string content;
    // Shared libraries are recorded by name only: their presence and version suffix are what
    // discovery reads, and vendor binaries do not belong in a bug report.
    bool library = path.find(".so") != std::string::npos;
    if (path == paths::kKmsg) {
      // The kernel log device becomes a regular file of the same records, which `health`
      // reads the same way under --root.
      auto text = host_.read_log(path, health::kKernelLogMaxBytes);
      if (!text) return true;  // unreadable here (dmesg_restrict): leave it out
      content = std::move(*text);
    } else if (S_ISREG(st.st_mode) && !library) {
      auto text = host_.read_file(path, 8 << 20);
      if (!text) return true;  // unreadable here (permissions): leave it out
      content = std::move(*text);
    }  // device nodes and sockets become empty files: their presence is what matters
    // The whole tree is renamed into place: each file is created in place, once.
    auto written = tree_.write_file(path, content, {.mode = 0644, .sync = false, .atomic = false});
    if (!written) return written.error();
    ++summary_.files;
    return true;
  }

  const HostRoot& host_;
  const ConfinedDir& tree_;
  std::set<std::string> dirs_, links_, files_;
  GatherSummary summary_;
};

}  // namespace

Result<GatherSummary> gather_host(const HostRoot& host, const std::string& dest) {
  // Built beside DEST under an unpredictable name and renamed onto it: a killed gather leaves
  // DEST as it was (absent, or the empty directory it was), and the next one removes the
  // staging tree it left.
  auto staged = StagedTree::begin(dest);
  if (!staged) return staged.error();
  HostOptions opts = host.options();
  opts.load_libraries = false;
  HostRoot recorded(opts);
  AccessLog log;
  recorded.set_access_log(&log);
  Inventory inventory = probe(recorded);
  // The files `metrics` reads (gpu_busy_percent, hwmon, GT frequency) are not all ones
  // discovery reads: one sysfs sample records them too, so the copy replays with metrics.
  for (const auto& backend : make_backends(recorded, inventory, Registry::builtin()))
    (void)backend->sample();
  // And what `health` reads: AER and link files, config space, RAS counters and bad pages,
  // hwmon thresholds, the kernel log and /proc/uptime, so the copy replays the same findings.
  (void)health::evaluate_health(recorded, inventory, {});
  (void)recorded.read_value(paths::kUptime);  // read by `health --since` only

  Copier copier(host, (*staged)->tree());
  for (const auto& path : log.paths()) {
    auto r = copier.materialize(path);
    if (!r) return r.error();
    // A listed directory's entries matter even when none was read (drm/cardN, renderDN).
    if (host.is_dir(*r))
      if (auto entries = host.list_dir(*r))
        for (const auto& e : *entries)
          if (auto made = copier.materialize_entry(*r + (*r == "/" ? "" : "/") + e); !made)
            return made.error();
  }
  if (auto done = (*staged)->commit(); !done) return done.error();
  return copier.summary();
}

}  // namespace anygpu
