// The one list of per-device metrics. JSON, CSV, Prometheus, the library worker's value lines,
// the merge of library values into kernel ones and the table in docs/metrics.md are all read
// from it, so a metric exists in every output or in none.
//
// A new metric is a DeviceSample field (metrics/sample.h), a row here and the sampler code
// that fills the field; docs/metrics.md's table is checked against the rows by a test.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "metrics/sample.h"

namespace anygpu {

enum class MetricType { gauge, counter };
std::string_view to_string(MetricType type);

// A labelled metric's CSV column for one label (CSV has a fixed set of columns).
struct CsvLabel {
  std::string_view label, column;
};

// One metric of a device: either a scalar (one value) or labelled (one value per label).
struct DeviceMetric {
  std::string_view key;         // JSON key ("power_watts"); a scalar's CSV column too
  std::string_view wire;        // the library worker's value line ("power")
  std::string_view prometheus;  // the series name ("anygpu_gpu_power_watts")
  MetricType type = MetricType::gauge;
  std::string_view unit;  // as in the name: ratio, bytes, celsius, watts, joules, hertz
  std::string_view help;  // Prometheus HELP line and the docs
  std::optional<double> DeviceSample::*scalar = nullptr;
  std::map<std::string, double> DeviceSample::*labelled = nullptr;
  std::string_view label = {};  // labelled: the Prometheus label that names the key ("clock")
  double min = 0, max = 0;      // the valid range: a worker value outside it is a protocol error
  // CSV columns are only ever appended: the row's columns of generation 0 are in the first
  // column set (0.1), those of generation N follow every column of generation N-1.
  int csv_generation = 0;
  std::span<const CsvLabel> csv_labels = {};  // labelled: the labels that have a column
  // Rows of one group come from one source: a library that only fills what the kernel left
  // absent (MergeRule::fill_absent) gives the group only when the kernel gave none of it.
  std::string_view merge_group = {};
  // A scalar a source may also give per partition (NVML on a MIG device handle): the same row,
  // series and key, on the partition's sample (metrics/sample.h PartitionSample).
  std::optional<double> PartitionSample::*partition = nullptr;

  bool set_in(const DeviceSample& d) const {
    return scalar ? (d.*scalar).has_value() : !(d.*labelled).empty();
  }
};

// Every row, in JSON and Prometheus order.
std::span<const DeviceMetric> device_metrics();
const DeviceMetric* find_metric_by_wire(std::string_view wire);

// The CSV columns that carry metrics, in CSV order.
struct CsvMetricColumn {
  std::string_view column;
  const DeviceMetric* metric;
  std::string_view label;  // empty for a scalar
  std::optional<double> value(const DeviceSample& d) const;
};
std::span<const CsvMetricColumn> csv_metric_columns();

// docs/metrics.md's table of metrics, generated from the rows (a test keeps the file equal).
std::string metrics_markdown_table();

}  // namespace anygpu
