#include "exporter/job_journal.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "util/strings.h"

namespace anygpu::exporter {

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool valid_bus_id(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
  return true;
}

std::optional<double> non_negative(std::string_view v) {
  auto d = parse_double(v);
  if (!d || *d < 0) return std::nullopt;
  return d;
}

// "key=value" fields of a device line into `d`; what is wrong, or "" when the line is good.
std::string read_device_fields(const std::vector<std::string_view>& fields, JournalDevice& d) {
  bool first = false, last = false, seconds = false;
  for (size_t i = 2; i < fields.size(); ++i) {
    auto f = fields[i];
    if (f.empty()) continue;
    auto eq = f.find('=');
    if (eq == std::string_view::npos) return cat({"'", f, "' is not key=value"});
    auto key = f.substr(0, eq), value = f.substr(eq + 1);
    auto bad = [&] { return cat({"bad ", key, " '", value, "'"}); };
    if (key == "vendor") {
      if (value.empty() || value.size() > 32) return bad();
      for (char c : value)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return bad();
      d.vendor = std::string(value);
    } else if (key == "gpu") {
      auto n = parse_uint(value);
      if (!n || *n > 65535) return bad();
      d.index = static_cast<int>(*n);
    } else if (key == "first" || key == "last") {
      auto n = parse_int(value);
      if (!n || *n < 0) return bad();
      (key == "first" ? d.first : d.last) = *n;
      (key == "first" ? first : last) = true;
    } else if (key == "seconds" || key == "idle_seconds" || key == "busy_seconds" ||
               key == "energy_joules") {
      auto v = non_negative(value);
      if (!v) return bad();
      if (key == "seconds") {
        d.seconds = *v;
        seconds = true;
      } else if (key == "idle_seconds") {
        d.idle_seconds = *v;
      } else if (key == "busy_seconds") {
        d.busy_seconds = v;
      } else {
        d.energy_joules = v;
      }
    } else if (key == "peak_memory_bytes") {
      auto n = parse_uint(value);
      if (!n) return bad();
      d.peak_memory_bytes = n;
    }  // other keys: a later version's, skipped
  }
  if (!first || !last || !seconds) return "first=, last= and seconds= are required";
  if (d.last < d.first) return "last is before first";
  return "";
}

}  // namespace

bool valid_job_id(std::string_view id) {
  if (id.empty() || id.size() > 128 || id[0] == '.') return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

bool valid_job_kind(std::string_view kind) {
  return kind == "slurm" || kind == "pod" || kind == "container";
}

std::string journal_file_name(const JobKey& job) {
  return cat({job.kind, "-", job.id, ".journal"});
}

std::string format_journal(const JobJournalRecord& r) {
  std::string out = cat({kJournalHeader, "\njob ", r.job.kind, " ", r.job.id, "\n"});
  for (const auto& [bus, d] : r.devices) {
    out += cat({"device ", bus, d.vendor.empty() ? "" : " vendor=", d.vendor,
                " gpu=", std::to_string(d.index), " first=", std::to_string(d.first),
                " last=", std::to_string(d.last), " seconds=", number(d.seconds),
                " idle_seconds=", number(d.idle_seconds)});
    if (d.busy_seconds) out += " busy_seconds=" + number(*d.busy_seconds);
    if (d.energy_joules) out += " energy_joules=" + number(*d.energy_joules);
    if (d.peak_memory_bytes) out += " peak_memory_bytes=" + std::to_string(*d.peak_memory_bytes);
    out += "\n";
  }
  return out;
}

ParsedJournal parse_journal(std::string_view text) {
  ParsedJournal out;
  if (text.size() > kMaxJournalBytes) {
    out.problems.push_back("larger than " + std::to_string(kMaxJournalBytes) + " bytes");
    return out;
  }
  auto lines = split_lines(text);
  if (lines.empty() || trim(lines[0]) != kJournalHeader) {
    out.problems.push_back(cat({"line 1: not '", kJournalHeader, "'"}));
    return out;
  }
  bool job = false;
  for (size_t n = 1; n < lines.size(); ++n) {
    auto line = trim(lines[n]);
    if (line.empty()) continue;
    auto where = "line " + std::to_string(n + 1) + ": ";
    auto fields = split(line, ' ');
    if (fields[0] == "job") {
      if (job || fields.size() != 3 || !valid_job_kind(fields[1]) || !valid_job_id(fields[2])) {
        out.problems.push_back(where + "bad or second job line");
        continue;
      }
      out.record.job = {std::string(fields[1]), std::string(fields[2])};
      job = true;
    } else if (fields[0] == "device") {
      if (fields.size() < 2 || !valid_bus_id(fields[1])) {
        out.problems.push_back(where + "bad device line");
        continue;
      }
      if (out.record.devices.size() >= kMaxJournalDevices) {
        out.problems.push_back(where + "more than " + std::to_string(kMaxJournalDevices) +
                               " devices");
        break;
      }
      JournalDevice d;
      if (auto why = read_device_fields(fields, d); !why.empty()) {
        out.problems.push_back(where + why);
        continue;
      }
      if (!out.record.devices.emplace(std::string(fields[1]), d).second)
        out.problems.push_back(where + "device listed twice");
    } else {
      out.problems.push_back(cat({where, "unknown line '", fields[0], "'"}));
    }
  }
  if (!job) {
    out.problems.push_back("no job line");
    out.record.devices.clear();  // figures of an unknown job are no one's
  }
  return out;
}

}  // namespace anygpu::exporter
