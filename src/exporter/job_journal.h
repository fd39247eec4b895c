// A job's journal: what the exporter accounted for one job on each device over the job's life,
// kept in a small text file per job (`<kind>-<id>.journal`) so that `anygpu report` and a Slurm
// epilog can read it after the job ended, and the exporter can carry on after a restart.
//
//   anygpu.job-journal/1
//   job slurm 77
//   device 0000:05:00.0 vendor=amd gpu=0 first=1764820000 last=1764820600 seconds=600
//     idle_seconds=0 busy_seconds=123.5 energy_joules=5000 peak_memory_bytes=4194304
//
// (one line per device; busy_seconds, energy_joules and peak_memory_bytes are absent where no
// source told). Keys a reader does not know are skipped, so the format can grow.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/job_accounting.h"

namespace anygpu::exporter {

inline constexpr std::string_view kJournalHeader = "anygpu.job-journal/1";
// A journal larger than this, or with more device lines, is not one the exporter wrote.
inline constexpr size_t kMaxJournalBytes = 16 << 10;
inline constexpr size_t kMaxJournalDevices = 64;

struct JournalDevice {
  std::string vendor;
  int index = 0;
  int64_t first = 0, last = 0;  // Unix seconds: first and last scan that saw the job there
  double seconds = 0;           // held or allocated, summed over scans
  double idle_seconds = 0;      // of which allocated and not held
  std::optional<double> busy_seconds, energy_joules;
  std::optional<uint64_t> peak_memory_bytes;
};

struct JobJournalRecord {
  JobKey job;
  std::map<std::string, JournalDevice> devices;  // by PCI bus id
};

struct ParsedJournal {
  JobJournalRecord record;            // every line that could be read
  std::vector<std::string> problems;  // "line N: …" for each line that could not (empty: intact)
};

// A job id as a file name may carry it: 1-128 of [A-Za-z0-9_.-], not starting with '.'. Slurm
// job ids, pod uids and container ids all are.
bool valid_job_id(std::string_view id);
bool valid_job_kind(std::string_view kind);
// "<kind>-<id>.journal"; the caller checked both.
std::string journal_file_name(const JobKey& job);

std::string format_journal(const JobJournalRecord& record);
// Never fails: a journal that is not one at all (no header, no job line) has a problem saying so
// and an empty record, one with a bad line keeps the others.
ParsedJournal parse_journal(std::string_view text);

}  // namespace anygpu::exporter
