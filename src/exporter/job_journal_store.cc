#include "exporter/job_journal_store.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "util/strings.h"

namespace anygpu::exporter {

namespace {

// What the accountant's counter grew by since the previous update; a counter below its previous
// value was started again (its entry was dropped and made anew), so all of it is new.
double grown(double now, std::optional<double>& last) {
  double d = last && now >= *last ? now - *last : now;
  last = now;
  return d;
}

}  // namespace

JobJournalStore::JobJournalStore(JournalOptions options, Warn warn)
    : options_(std::move(options)), warn_(std::move(warn)) {}

const ConfinedDir* JobJournalStore::directory() {
  if (dir_) return &*dir_;
  if (dir_failed_) return nullptr;
  auto fail = [&](const std::string& why) -> const ConfinedDir* {
    warn_(cat({"job journals off: ", options_.dir, ": ", why}));
    dir_failed_ = true;
    return nullptr;
  };
  // The directory itself, as named: a link there could point the writes anywhere, and one
  // that everyone may write lets anyone plant or remove journals.
  struct stat st {};
  if (::lstat(options_.dir.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) return fail("is a symbolic link");
    if (!S_ISDIR(st.st_mode)) return fail("is not a directory");
    if ((st.st_mode & S_IWOTH) != 0) return fail("is writable by every user");
  }
  auto dir = ConfinedDir::open(options_.dir, Confinement::no_symlinks, true);
  if (!dir) return fail(dir.error().message);
  dir_ = std::move(*dir);
  return &*dir_;
}

JobJournalStore::Open JobJournalStore::load(const JobKey& job, int64_t now) {
  Open open;
  open.record.job = job;
  const auto* dir = directory();
  if (!dir) return open;
  auto name = journal_file_name(job);
  auto text = dir->read_file(name, kMaxJournalBytes + 1);
  if (!text) {
    if (text.error().sys_errno != ENOENT)
      warn_(cat({"job journal ", dir->show(name), ": ", text.error().message,
                 "; a new one replaces it"}));
    return open;
  }
  auto parsed = parse_journal(*text);
  if (parsed.problems.empty() && parsed.record.job == job) {
    open.record = std::move(parsed.record);
    return open;
  }
  if (parsed.record.job != job && parsed.problems.empty())
    parsed.problems.push_back(
        cat({"names job ", parsed.record.job.kind, " ", parsed.record.job.id}));
  // Set aside whole, so nothing that was there is lost; what could be read carries on.
  auto aside = cat({name, ".corrupt-", std::to_string(now)});
  auto copied = dir->write_file(aside, *text, {.mode = 0600});
  warn_(cat({"job journal ", dir->show(name), " is corrupt (", parsed.problems.front(),
             parsed.problems.size() > 1
                 ? cat({" and ", std::to_string(parsed.problems.size() - 1), " more"})
                 : "",
             "); ", copied ? "kept as " + dir->show(aside) : "could not keep a copy",
             ", its readable lines carried on"}));
  if (parsed.record.job == job) open.record.devices = std::move(parsed.record.devices);
  open.dirty = true;  // the journal on disk is the corrupt one
  return open;
}

void JobJournalStore::write(Open& open, int64_t now) {
  const auto* dir = directory();
  if (!dir) return;
  auto name = journal_file_name(open.record.job);
  if (auto done = dir->write_file(name, format_journal(open.record)); !done) {
    warn_(cat({"job journal ", dir->show(name), ": ", done.error().message}));
    return;
  }
  open.written = now;
  open.dirty = false;
}

void JobJournalStore::update(const JobSeries& series, std::chrono::system_clock::time_point at) {
  if (dir_failed_) return;
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count();
  std::set<JobKey> listed;
  for (auto& [job, open] : open_) open.seen = false;
  for (const auto& u : series.usage) {
    if (!valid_job_kind(u.job.kind) || !valid_job_id(u.job.id)) continue;
    listed.insert(u.job);
    if (!u.seen) continue;
    auto it = open_.find(u.job);
    if (it == open_.end()) it = open_.emplace(u.job, load(u.job, now)).first;
    auto& open = it->second;
    open.seen = true;
    auto& devices = open.record.devices;
    auto d = devices.find(u.pci_bus_id);
    if (d == devices.end()) {
      if (devices.size() >= kMaxJournalDevices) continue;
      JournalDevice fresh;
      fresh.vendor = u.vendor;
      fresh.index = u.index;
      fresh.first = fresh.last = now;
      d = devices.emplace(u.pci_bus_id, std::move(fresh)).first;
    }
    auto& dev = d->second;
    auto& last = open.last[u.pci_bus_id];
    int64_t elapsed = now - dev.last;
    if (elapsed > 0 && elapsed <= options_.max_gap.count()) {
      dev.seconds += static_cast<double>(elapsed);
      if (u.allocated_idle) dev.idle_seconds += static_cast<double>(elapsed);
    }
    dev.last = std::max(dev.last, now);
    if (u.busy_seconds)
      dev.busy_seconds = dev.busy_seconds.value_or(0) + grown(*u.busy_seconds, last.busy);
    if (u.energy_joules)
      dev.energy_joules = dev.energy_joules.value_or(0) + grown(*u.energy_joules, last.energy);
    if (u.memory_bytes)
      dev.peak_memory_bytes = std::max(dev.peak_memory_bytes.value_or(0), *u.memory_bytes);
    open.dirty = true;
  }
  for (auto it = open_.begin(); it != open_.end();) {
    auto& open = it->second;
    bool due = !open.written || now - *open.written >= options_.write_every.count();
    // The last write of a job no longer seen is its final one: it goes out at once.
    if (open.dirty && (due || !open.seen)) write(open, now);
    // Kept while the accountant holds the job, whose counters the next update continues.
    if (!listed.contains(it->first) && !open.dirty)
      it = open_.erase(it);
    else
      ++it;
  }
}

void JobJournalStore::flush(std::chrono::system_clock::time_point at) {
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count();
  for (auto& [job, open] : open_)
    if (open.dirty) write(open, now);
}

}  // namespace anygpu::exporter
