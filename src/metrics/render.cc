#include "metrics/render.h"

#include <cmath>
#include <cstdio>
#include <ctime>

#include "metrics/schema.h"

namespace anygpu {

namespace {

using json = nlohmann::ordered_json;

// Byte and energy counts are integers in JSON when they are whole (they always are from the
// kernel), so consumers do not see 206141652992.0.
json num(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
  return v;
}

std::string csv_number(const std::optional<double>& v) {
  if (!v) return {};
  json j = num(*v);
  return j.dump();
}

// RFC 4180: quote a field holding a comma, quote or line break; double inner quotes.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string memory_gib(const std::optional<double>& used, const std::optional<double>& total) {
  auto gib = [](const std::optional<double>& v) {
    return v ? fixed(*v / (1024.0 * 1024 * 1024), 1) : std::string("-");
  };
  return gib(used) + "/" + gib(total) + " GiB";
}

// "  partition 2: MIG-5c2e…, 2c.3g.40gb, memory 0.3/38.0 GiB" under its device, as in `detect`;
// only memory, the one value a MIG instance has of its own.
std::string partition_row(const PartitionSample& p) {
  std::string line = "  partition " + std::to_string(p.index) + ": " + p.id;
  if (p.profile) line += ", " + *p.profile;
  return line + ", memory " + memory_gib(p.memory_used_bytes, p.memory_total_bytes) + "\n";
}

std::optional<double> clock(const DeviceSample& d, const char* name) {
  auto it = d.clocks_hertz.find(name);
  if (it == d.clocks_hertz.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string rfc3339(std::chrono::system_clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

namespace {

json device_json(const DeviceSample& d) {
  json j;
  j["vendor"] = d.vendor;
  j["index"] = d.index;
  j["pci_bus_id"] = d.pci_bus_id;
  if (d.uuid) j["uuid"] = *d.uuid;
  if (d.name) j["name"] = *d.name;
  for (const auto& m : device_metrics()) {
    if (m.scalar) {
      if (const auto& v = d.*(m.scalar)) j[std::string(m.key)] = num(*v);
    } else if (const auto& values = d.*(m.labelled); !values.empty()) {
      json& o = j[std::string(m.key)];
      for (const auto& [k, v] : values) o[k] = num(v);
    }
  }
  if (!d.partitions.empty()) {
    json& parts = j["partitions"] = json::array();
    for (const auto& p : d.partitions) {
      json pj;
      pj["index"] = p.index;
      pj["id"] = p.id;
      if (p.profile) pj["profile"] = *p.profile;
      for (const auto& m : device_metrics())
        if (m.partition)
          if (const auto& v = p.*(m.partition)) pj[std::string(m.key)] = num(*v);
      parts.push_back(std::move(pj));
    }
  }
  if (!d.warnings.empty()) j["warnings"] = d.warnings;
  return j;
}

json backend_json(const BackendStatus& b, std::chrono::system_clock::time_point now) {
  json j;
  j["vendor"] = b.vendor;
  j["source"] = b.source;
  j["up"] = b.up;
  if (b.last_success != std::chrono::system_clock::time_point{}) {
    j["last_success"] = rfc3339(b.last_success);
    j["age_seconds"] = std::max(0.0, std::chrono::duration<double>(now - b.last_success).count());
  }
  if (b.error) j["error"] = *b.error;
  if (const auto& l = b.library) {
    json& lj = j["library"];
    lj["api"] = l->api;
    lj["crashes"] = l->crashes;
    if (l->status) lj["status"] = std::string(to_string(*l->status));
    if (l->signal) lj["signal"] = *l->signal;
    if (l->exit_code) lj["exit_code"] = *l->exit_code;
  }
  return j;
}

}  // namespace

nlohmann::ordered_json metrics_to_json(const MetricsSnapshot& s) {
  json doc;
  doc["schema"] = "anygpu.metrics/v1";
  doc["timestamp"] = rfc3339(s.timestamp);
  doc["devices"] = json::array();
  for (const auto& d : s.devices) doc["devices"].push_back(device_json(d));
  doc["backends"] = json::array();
  for (const auto& b : s.backends) doc["backends"].push_back(backend_json(b, s.timestamp));
  return doc;
}

const std::vector<std::string>& metrics_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"timestamp", "vendor", "index", "pci_bus_id", "uuid", "name"};
    for (const auto& m : csv_metric_columns()) c.emplace_back(m.column);
    return c;
  }();
  return columns;
}

std::string metrics_csv_header() {
  std::string out;
  for (const auto& c : metrics_csv_columns()) out += (out.empty() ? "" : ",") + c;
  return out + "\n";
}

std::string metrics_csv_rows(const MetricsSnapshot& s) {
  std::string out;
  std::string ts = rfc3339(s.timestamp);
  for (const auto& d : s.devices) {
    std::vector<std::string> cells = {ts,
                                      csv_field(d.vendor),
                                      std::to_string(d.index),
                                      d.pci_bus_id,
                                      csv_field(d.uuid.value_or("")),
                                      csv_field(d.name.value_or(""))};
    for (const auto& m : csv_metric_columns()) cells.push_back(csv_number(m.value(d)));
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

std::string metrics_to_table(const MetricsSnapshot& s) {
  char line[256];
  std::string out;
  std::snprintf(line, sizeof line, "%-10s %3s %-13s %6s %21s %7s %9s %9s  %s\n", "VENDOR", "IDX",
                "BUS ID", "UTIL", "MEMORY USED/TOTAL", "TEMP", "POWER", "CLOCK", "NAME");
  out += line;
  auto dash = [](const std::optional<double>& v, auto fmt) { return v ? fmt(*v) : "-"; };
  for (const auto& d : s.devices) {
    auto util = dash(d.utilization_ratio, [](double v) { return fixed(v * 100, 0) + "%"; });
    std::string mem = memory_gib(d.memory_used_bytes, d.memory_total_bytes);
    auto temp = dash(d.temperature_celsius, [](double v) { return fixed(v, 0) + "C"; });
    auto power = dash(d.power_watts, [](double v) { return fixed(v, 1) + "W"; });
    auto clk = dash(clock(d, "graphics"), [](double v) { return fixed(v / 1e6, 0) + "MHz"; });
    std::snprintf(line, sizeof line, "%-10s %3d %-13s %6s %21s %7s %9s %9s  %s\n", d.vendor.c_str(),
                  d.index, d.pci_bus_id.c_str(), util.c_str(), mem.c_str(), temp.c_str(),
                  power.c_str(), clk.c_str(), d.name.value_or("-").c_str());
    out += line;
    for (const auto& p : d.partitions) out += partition_row(p);
  }
  for (const auto& b : s.backends)
    if (!b.up)
      out +=
          "backend " + b.vendor + "/" + b.source + " down: " + b.error.value_or("unknown") + "\n";
  return out;
}

}  // namespace anygpu
