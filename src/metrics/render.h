// `anygpu metrics` output: JSON (anygpu.metrics/v1), CSV and the human table. Absent values are
// absent: left out of JSON, an empty CSV cell, "-" in the table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "metrics/sample.h"

namespace anygpu {

nlohmann::ordered_json metrics_to_json(const MetricsSnapshot& snapshot);
// The CSV columns, in order (documented in docs/metrics.md; never reordered, only appended).
const std::vector<std::string>& metrics_csv_columns();
std::string metrics_csv_header();
std::string metrics_csv_rows(const MetricsSnapshot& snapshot);  // one line per device
std::string metrics_to_table(const MetricsSnapshot& snapshot);
// v with exactly `decimals` digits after the point ("%.*f"), for tables and CSV.
std::string fixed(double v, int decimals);
// RFC 3339 UTC with milliseconds: 2026-11-29T20:01:02.123Z
std::string rfc3339(std::chrono::system_clock::time_point t);

}  // namespace anygpu
