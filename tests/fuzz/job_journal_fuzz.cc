// A job journal (exporter/job_journal.h), read back from a disk anyone with root may have
// edited: parsing never crashes; what it keeps is bounded, written back reads as the same
// record with no problem, and an unknown figure stays unknown.
#include "exporter/job_journal.h"
#include "fuzz_check.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = exporter::parse_journal(fuzz::as_text(data, size));
  const auto& r = parsed.record;
  FUZZ_CHECK(r.devices.size() <= exporter::kMaxJournalDevices);
  if (r.job.id.empty()) {
    FUZZ_CHECK(r.devices.empty());
    FUZZ_CHECK(!parsed.problems.empty());
    return 0;
  }
  FUZZ_CHECK(exporter::valid_job_kind(r.job.kind) && exporter::valid_job_id(r.job.id));
  auto again = exporter::parse_journal(exporter::format_journal(r));
  FUZZ_CHECK(again.problems.empty());
  FUZZ_CHECK(again.record.job == r.job);
  FUZZ_CHECK(again.record.devices.size() == r.devices.size());
  for (const auto& [bus, d] : r.devices) {
    const auto& e = again.record.devices.at(bus);
    FUZZ_CHECK(d.last >= d.first && d.seconds >= 0 && d.idle_seconds >= 0);
    FUZZ_CHECK(e.first == d.first && e.last == d.last && e.seconds == d.seconds);
    FUZZ_CHECK(e.busy_seconds.has_value() == d.busy_seconds.has_value());
    FUZZ_CHECK(e.energy_joules.has_value() == d.energy_joules.has_value());
    FUZZ_CHECK(e.peak_memory_bytes == d.peak_memory_bytes);
  }
  return 0;
}
