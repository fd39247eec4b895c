#include "exporter/job_report.h"

#include <cstdio>

#include "util/strings.h"

namespace anygpu::exporter {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string mib(uint64_t bytes) {
  return fixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 1) + " MiB";
}

// A device the job was allocated and never held (idle for all of its time there).
bool never_held(const JournalDevice& d) {
  return d.seconds > 0 && d.idle_seconds >= d.seconds;
}

// Busy over the time the job had the device. A device no process of the job held was not busy
// for the job: 0, known. One held without engine counters (NVIDIA): absent.
std::optional<double> mean_busy(const JournalDevice& d) {
  if (d.seconds <= 0) return std::nullopt;
  if (!d.busy_seconds) return never_held(d) ? std::optional<double>(0.0) : std::nullopt;
  return std::min(1.0, *d.busy_seconds / d.seconds);
}

struct Totals {
  double seconds = 0, idle_seconds = 0;
  std::optional<double> busy_seconds, busy_base, energy;
  std::optional<uint64_t> peak;
  int idle_devices = 0;
  bool busy_unknown = false;  // some device was held without engine counters
};

Totals totals(const JobJournalRecord& r) {
  Totals t;
  for (const auto& [bus, d] : r.devices) {
    t.seconds += d.seconds;
    t.idle_seconds += d.idle_seconds;
    // The time whose busy share is known: all of it where the engines were read, else the
    // time the device sat allocated and not held (0 busy).
    if (d.busy_seconds) {
      t.busy_seconds = t.busy_seconds.value_or(0) + *d.busy_seconds;
      t.busy_base = t.busy_base.value_or(0) + d.seconds;
    } else {
      if (d.idle_seconds > 0) {
        t.busy_seconds = t.busy_seconds.value_or(0);
        t.busy_base = t.busy_base.value_or(0) + d.idle_seconds;
      }
      // Held for a while with no engine read: the job's busy share is not known, and a mean
      // over the rest (the unheld devices' 0 alone, say) would be read as the job's.
      if (d.seconds > d.idle_seconds) t.busy_unknown = true;
    }
    if (d.energy_joules) t.energy = t.energy.value_or(0) + *d.energy_joules;
    if (d.peak_memory_bytes) t.peak = std::max(t.peak.value_or(0), *d.peak_memory_bytes);
    if (never_held(d)) ++t.idle_devices;
  }
  return t;
}

std::optional<double> mean(const Totals& t) {
  if (t.busy_unknown || !t.busy_seconds || !t.busy_base || *t.busy_base <= 0) return std::nullopt;
  return std::min(1.0, *t.busy_seconds / *t.busy_base);
}

}  // namespace

std::string job_report_text(const JobJournalRecord& r) {
  std::string out = cat({"Job ", r.job.kind, " ", r.job.id, "\n\n"});
  std::vector<std::vector<std::string>> rows{
      {"GPU", "BUS ID", "GPU-HOURS", "MEAN BUSY", "PEAK MEMORY", "ENERGY", "NOTE"}};
  for (const auto& [bus, d] : r.devices) {
    auto busy = mean_busy(d);
    std::string note = never_held(d) ? "allocated, never held"
                       : d.idle_seconds > 0
                           ? "allocated and not held for " + fixed(d.idle_seconds / 3600, 3) + " h"
                           : "";
    rows.push_back({cat({d.vendor, " ", std::to_string(d.index)}), bus, fixed(d.seconds / 3600, 3),
                    busy ? fixed(*busy * 100, 1) + " %" : "-",
                    d.peak_memory_bytes ? mib(*d.peak_memory_bytes) : "-",
                    d.energy_joules ? fixed(*d.energy_joules, 0) + " J" : "-", note});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  auto t = totals(r);
  auto m = mean(t);
  out += cat({"\nTotal: ", fixed(t.seconds / 3600, 3), " GPU-hours",
              m ? cat({", ", fixed(*m * 100, 1), " % busy"}) : "",
              t.energy ? cat({", ", fixed(*t.energy, 0), " J"}) : "",
              t.idle_devices
                  ? cat({", ", std::to_string(t.idle_devices), " allocated GPU(s) never held"})
                  : "",
              "\n"});
  out +=
      "Unknown figures are '-': no engine counters (busy), energy counter (energy) or memory "
      "figure the device's driver publishes.\n";
  return out;
}

nlohmann::ordered_json job_report_json(const JobJournalRecord& r) {
  nlohmann::ordered_json doc;
  doc["schema"] = "anygpu.job-report/v1";
  doc["job"] = {{"kind", r.job.kind}, {"id", r.job.id}};
  auto devices = nlohmann::ordered_json::array();
  for (const auto& [bus, d] : r.devices) {
    nlohmann::ordered_json j;
    j["pci_bus_id"] = bus;
    j["vendor"] = d.vendor;
    j["gpu"] = d.index;
    j["first_seen"] = d.first;
    j["last_seen"] = d.last;
    j["gpu_hours"] = d.seconds / 3600;
    j["idle_hours"] = d.idle_seconds / 3600;
    if (auto busy = mean_busy(d)) j["mean_busy"] = *busy;
    if (d.busy_seconds) j["busy_seconds"] = *d.busy_seconds;
    if (d.peak_memory_bytes) j["peak_memory_bytes"] = *d.peak_memory_bytes;
    if (d.energy_joules) j["energy_joules"] = *d.energy_joules;
    j["never_held"] = never_held(d);
    devices.push_back(std::move(j));
  }
  doc["devices"] = std::move(devices);
  auto t = totals(r);
  nlohmann::ordered_json total;
  total["gpu_hours"] = t.seconds / 3600;
  total["idle_hours"] = t.idle_seconds / 3600;
  if (auto m = mean(t)) total["mean_busy"] = *m;
  if (t.peak) total["peak_memory_bytes"] = *t.peak;
  if (t.energy) total["energy_joules"] = *t.energy;
  total["never_held_devices"] = t.idle_devices;
  doc["total"] = std::move(total);
  return doc;
}

std::string job_report_epilog(const JobJournalRecord& r) {
  auto t = totals(r);
  std::string out =
      cat({"anygpu job=", r.job.kind, "/", r.job.id, " gpus=", std::to_string(r.devices.size()),
           " gpu_hours=", fixed(t.seconds / 3600, 3)});
  if (auto m = mean(t)) out += " busy=" + fixed(*m * 100, 1) + "%";
  if (t.peak) out += " peak_memory_mib=" + fixed(static_cast<double>(*t.peak) / 1048576.0, 0);
  if (t.energy) out += " energy_j=" + fixed(*t.energy, 0);
  out += cat({" idle_gpus=", std::to_string(t.idle_devices),
              " idle_gpu_hours=", fixed(t.idle_seconds / 3600, 3)});
  return out;
}

}  // namespace anygpu::exporter
