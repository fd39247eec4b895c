// The exporter's journals (exporter/job_journal.h): after each scan, what the accountant added
// for every job is folded into that job's journal, which is rewritten atomically (a confined
// write: no link in the directory is followed) at most every `write_every` and once more when
// the job is no longer seen. A journal that exists is carried on (the exporter restarted); one
// that cannot be read whole is copied aside as `<name>.corrupt-<unix time>` with a warning, and
// its readable lines start the new one.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "exporter/job_accounting.h"
#include "exporter/job_journal.h"
#include "host/confined_writer.h"

namespace anygpu::exporter {

inline constexpr std::string_view kDefaultJournalDir = "/var/lib/anygpu/jobs";

struct JournalOptions {
  std::string dir;  // created on the first write (mode 0755)
  std::chrono::seconds write_every{30};
  // Scans further apart than this add no time: the exporter was not running, or the job was
  // not seen in between.
  std::chrono::seconds max_gap{60};
};

class JobJournalStore {
 public:
  using Warn = std::function<void(const std::string&)>;
  JobJournalStore(JournalOptions options, Warn warn);

  // Folds the scan's series in; `now` is the scan's wall-clock time.
  void update(const JobSeries& series, std::chrono::system_clock::time_point now);
  // Writes every journal with figures not yet written (the exporter is stopping).
  void flush(std::chrono::system_clock::time_point now);

 private:
  struct Last {
    std::optional<double> busy, energy;  // the accountant's counters at the previous update
  };
  struct Open {
    JobJournalRecord record;
    std::map<std::string, Last> last;  // by bus id
    std::optional<int64_t> written;    // Unix seconds of the last write
    bool dirty = false, seen = false;
  };

  Open load(const JobKey& job, int64_t now);
  void write(Open& open, int64_t now);
  const ConfinedDir* directory();

  JournalOptions options_;
  Warn warn_;
  std::optional<ConfinedDir> dir_;
  bool dir_failed_ = false;  // warned once; journals are off until the exporter restarts
  std::map<JobKey, Open> open_;
};

}  // namespace anygpu::exporter
