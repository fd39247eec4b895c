#include "metrics/schema.h"

#include <algorithm>
#include <vector>

#include "util/fork_safety.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr double kHuge = 1e30;
constexpr double kTemperatureMin = -273.15, kTemperatureMax = 10000;

constexpr CsvLabel kClockColumns[] = {
    {"graphics", "clock_graphics_hertz"},
    {"sm", "clock_sm_hertz"},
    {"memory", "clock_memory_hertz"},
};

// Published names (JSON keys, CSV columns, series) never change; a new row is appended where
// it reads best in JSON, and its CSV column in the next csv_generation.
constexpr DeviceMetric kMetrics[] = {
    {.key = "utilization_ratio",
     .wire = "utilization",
     .prometheus = "anygpu_gpu_utilization_ratio",
     .unit = "ratio",
     .help = "Fraction of the last sample period the device was busy (0-1).",
     .scalar = &DeviceSample::utilization_ratio,
     .max = 1},
    {.key = "memory_used_bytes",
     .wire = "memory-used",
     .prometheus = "anygpu_gpu_memory_used_bytes",
     .unit = "bytes",
     .help = "Device memory in use, bytes.",
     .scalar = &DeviceSample::memory_used_bytes,
     .max = kHuge,
     .merge_group = "memory",
     .partition = &PartitionSample::memory_used_bytes},
    {.key = "memory_total_bytes",
     .wire = "memory-total",
     .prometheus = "anygpu_gpu_memory_total_bytes",
     .unit = "bytes",
     .help = "Device memory size, bytes.",
     .scalar = &DeviceSample::memory_total_bytes,
     .max = kHuge,
     .merge_group = "memory",
     .partition = &PartitionSample::memory_total_bytes},
    {.key = "temperature_celsius",
     .wire = "temperature",
     .prometheus = "anygpu_gpu_temperature_celsius",
     .unit = "celsius",
     .help = "Headline temperature: the edge sensor where the device has one, else the junction.",
     .scalar = &DeviceSample::temperature_celsius,
     .min = kTemperatureMin,
     .max = kTemperatureMax},
    {.key = "temperatures_celsius",
     .wire = "sensor",
     .prometheus = "anygpu_gpu_sensor_temperature_celsius",
     .unit = "celsius",
     .help = "Every temperature sensor of the device, by its label.",
     .labelled = &DeviceSample::temperatures_celsius,
     .label = "sensor",
     .min = kTemperatureMin,
     .max = kTemperatureMax},
    {.key = "power_watts",
     .wire = "power",
     .prometheus = "anygpu_gpu_power_watts",
     .unit = "watts",
     .help = "Power draw, watts.",
     .scalar = &DeviceSample::power_watts,
     .max = kHuge},
    {.key = "power_limit_watts",
     .wire = "power-limit",
     .prometheus = "anygpu_gpu_power_limit_watts",
     .unit = "watts",
     .help = "Enforced power limit (amdgpu power1_cap, Intel powerN_max, NVML's enforced "
             "limit), watts.",
     .scalar = &DeviceSample::power_limit_watts,
     .max = kHuge,
     .csv_generation = 1},
    {.key = "energy_joules",
     .wire = "energy",
     .prometheus = "anygpu_gpu_energy_joules_total",
     .type = MetricType::counter,
     .unit = "joules",
     .help = "Energy consumed since the driver's counter started, joules.",
     .scalar = &DeviceSample::energy_joules,
     .max = kHuge},
    {.key = "clocks_hertz",
     .wire = "clock",
     .prometheus = "anygpu_gpu_clock_hertz",
     .unit = "hertz",
     .help = "Current clock frequency by clock domain, hertz.",
     .labelled = &DeviceSample::clocks_hertz,
     .label = "clock",
     .max = kHuge,
     .csv_labels = kClockColumns},
};

// What the renderers and the codec rely on, checked when the table is compiled.
constexpr bool well_formed(const DeviceMetric& m) {
  bool one_field = (m.scalar != nullptr) != (m.labelled != nullptr);
  bool label_iff_labelled = m.label.empty() == (m.labelled == nullptr);
  bool csv_only_labelled = m.scalar == nullptr || m.csv_labels.empty();
  bool counter_named = m.type != MetricType::counter || m.prometheus.ends_with("_total");
  bool partition_only_scalar = m.partition == nullptr || m.scalar != nullptr;
  return one_field && label_iff_labelled && csv_only_labelled && counter_named &&
         partition_only_scalar && !m.key.empty() && !m.wire.empty() &&
         m.prometheus.starts_with("anygpu_gpu_") && !m.help.empty() && m.min < m.max &&
         m.csv_generation >= 0;
}
constexpr bool unique_names() {
  for (const auto& a : kMetrics)
    for (const auto& b : kMetrics)
      if (&a != &b && (a.key == b.key || a.wire == b.wire || a.prometheus == b.prometheus))
        return false;
  return true;
}
static_assert(std::ranges::all_of(kMetrics, well_formed), "a malformed metric row");
static_assert(unique_names(), "two metric rows share a name");

std::vector<CsvMetricColumn> make_csv_columns() {
  std::vector<CsvMetricColumn> out;
  int last = 0;
  for (const auto& m : kMetrics) last = std::max(last, m.csv_generation);
  for (int generation = 0; generation <= last; ++generation)
    for (const auto& m : kMetrics) {
      if (m.csv_generation != generation) continue;
      if (m.scalar) out.push_back({m.key, &m, {}});
      for (const auto& c : m.csv_labels) out.push_back({c.column, &m, c.label});
    }
  return out;
}

// One append after another: "`" + std::string(s) inserts at the front, which GCC 12 at -O3
// misreads as an overlapping copy (-Wrestrict, GCC bug 105329).
std::string code(std::string_view s) {
  return cat({"`", s, "`"});
}

std::string csv_cell(const DeviceMetric& m) {
  std::string out;
  for (const auto& c : csv_metric_columns())
    if (c.metric == &m) out += (out.empty() ? "" : ", ") + code(c.column);
  return out.empty() ? "—" : out;
}

}  // namespace

std::string_view to_string(MetricType type) {
  return type == MetricType::counter ? "counter" : "gauge";
}

std::span<const DeviceMetric> device_metrics() {
  return kMetrics;
}

const DeviceMetric* find_metric_by_wire(std::string_view wire) {
  for (const auto& m : kMetrics)
    if (m.wire == wire) return &m;
  return nullptr;
}

std::optional<double> CsvMetricColumn::value(const DeviceSample& d) const {
  if (metric->scalar) return d.*(metric->scalar);
  const auto& map = d.*(metric->labelled);
  auto it = map.find(std::string(label));
  if (it == map.end()) return std::nullopt;
  return it->second;
}

namespace {
// Built once, fork-safely: the C ABI reaches the metrics sample (occupancy criteria in select).
constinit ForkSafeLazy<std::vector<CsvMetricColumn>> g_csv_columns;
}  // namespace

std::span<const CsvMetricColumn> csv_metric_columns() {
  return g_csv_columns.get(make_csv_columns);
}

std::string metrics_markdown_table() {
  std::string out =
      "| JSON key | CSV column | Prometheus series | type | unit | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& m : kMetrics) {
    std::string key = code(m.key), series = code(m.prometheus);
    if (m.labelled) {
      key += " (by " + std::string(m.label) + ")";
      series = code(std::string(m.prometheus) + "{" + std::string(m.label) + "}");
    }
    out += "| " + key + " | " + csv_cell(m) + " | " + series + " | " +
           std::string(to_string(m.type)) + " | " + std::string(m.unit) + " | " +
           std::string(m.help) + " |\n";
  }
  return out;
}

}  // namespace anygpu
