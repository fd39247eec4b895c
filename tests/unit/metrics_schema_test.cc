// The metric table (src/metrics/schema.h) drives every output: for each row, a sample with only
// that field set shows the metric in JSON, CSV and Prometheus, and a sample without it shows it
// in none of them (absent, not 0); the worker codec and the library merge follow the same
// rows; docs/metrics.md lists exactly the rows.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "metrics/prometheus.h"
#include "metrics/remote_library.h"
#include "metrics/render.h"
#include "metrics/sample_protocol.h"
#include "metrics/schema.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

using namespace std::chrono_literals;

// A value inside the row's range that no renderer writes by accident (not 0, not 1), and how
// CSV and Prometheus write it.
double value_for(const DeviceMetric& m) {
  return m.max <= 1 ? 0.25 : 1234.5;
}
std::string text_for(const DeviceMetric& m) {
  return m.max <= 1 ? "0.25" : "1234.5";
}

// Labels of a labelled row: each that has a CSV column, and one that has none.
std::vector<std::string> labels_for(const DeviceMetric& m) {
  std::vector<std::string> out;
  for (const auto& c : m.csv_labels) out.emplace_back(c.label);
  out.emplace_back("extra");
  return out;
}

DeviceSample identity() {
  DeviceSample d;
  d.vendor = "amd";
  d.index = 2;
  d.pci_bus_id = "0000:46:00.0";
  return d;
}

DeviceSample with_only(const DeviceMetric& m) {
  DeviceSample d = identity();
  if (m.scalar) {
    d.*(m.scalar) = value_for(m);
  } else {
    for (const auto& l : labels_for(m)) (d.*(m.labelled))[l] = value_for(m);
  }
  return d;
}

MetricsSnapshot snapshot_of(DeviceSample d) {
  MetricsSnapshot s;
  s.timestamp = std::chrono::system_clock::time_point{} + 1764446400000ms;
  s.devices = {std::move(d)};
  return s;
}

// The CSV row as cells by column name (no field of these samples needs quoting).
std::map<std::string, std::string> csv_cells(const MetricsSnapshot& s) {
  std::string header_line = metrics_csv_header(), row_line = metrics_csv_rows(s);
  auto header = split(trim(header_line), ',');
  auto row = split(trim(row_line), ',');
  EXPECT_EQ(header.size(), row.size());
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < header.size() && i < row.size(); ++i)
    out[std::string(header[i])] = std::string(row[i]);
  return out;
}

bool has_line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(MetricsSchema, EveryRowIsInJsonCsvAndPrometheusWhenSet) {
  for (const auto& m : device_metrics()) {
    SCOPED_TRACE(std::string(m.key));
    auto s = snapshot_of(with_only(m));
    auto j = metrics_to_json(s)["devices"][0];
    auto cells = csv_cells(s);
    auto prom = render_prometheus(s, s.timestamp);
    std::string name(m.prometheus);
    EXPECT_TRUE(has_line_starting(prom, cat({"# TYPE ", name, " ", to_string(m.type)}))) << prom;
    EXPECT_TRUE(has_line_starting(prom, cat({"# HELP ", name, " ", m.help}))) << prom;
    if (m.scalar) {
      ASSERT_TRUE(j.contains(m.key)) << j.dump();
      EXPECT_DOUBLE_EQ(j[std::string(m.key)].get<double>(), value_for(m));
      EXPECT_EQ(cells[std::string(m.key)], text_for(m));
      EXPECT_TRUE(has_line_starting(
          prom, name + "{vendor=\"amd\",gpu=\"2\",pci_bus_id=\"0000:46:00.0\"} " + text_for(m)))
          << prom;
      continue;
    }
    for (const auto& l : labels_for(m)) {
      EXPECT_DOUBLE_EQ(j[std::string(m.key)][l].get<double>(), value_for(m)) << j.dump();
      EXPECT_TRUE(has_line_starting(prom, cat({name,
                                               "{vendor=\"amd\",gpu=\"2\",pci_bus_id=\"0000:"
                                               "46:00.0\",",
                                               m.label, "=\"", l, "\"} "})))
          << prom;
    }
    for (const auto& c : m.csv_labels) EXPECT_EQ(cells[std::string(c.column)], text_for(m));
  }
}

TEST(MetricsSchema, EveryRowIsAbsentEverywhereWhenUnset) {
  auto s = snapshot_of(identity());
  auto j = metrics_to_json(s)["devices"][0];
  auto cells = csv_cells(s);
  auto prom = render_prometheus(s, s.timestamp);
  for (const auto& m : device_metrics()) {
    SCOPED_TRACE(std::string(m.key));
    EXPECT_FALSE(j.contains(m.key)) << j.dump();
    EXPECT_EQ(prom.find(std::string(m.prometheus)), std::string::npos) << "absent, not 0:\n"
                                                                       << prom;
    for (const auto& c : csv_metric_columns()) {
      if (c.metric != &m) continue;
      EXPECT_EQ(cells.at(std::string(c.column)), "") << c.column;
    }
  }
  EXPECT_NE(prom.find("anygpu_gpu_info{"), std::string::npos) << "the device is still listed";
}

// Each sample sets one row only; no other row's output appears (a row reads its own field).
TEST(MetricsSchema, RowsDoNotLeakIntoEachOther) {
  for (const auto& m : device_metrics()) {
    SCOPED_TRACE(std::string(m.key));
    auto s = snapshot_of(with_only(m));
    auto j = metrics_to_json(s)["devices"][0];
    auto prom = render_prometheus(s, s.timestamp);
    for (const auto& other : device_metrics()) {
      if (&other == &m) continue;
      EXPECT_FALSE(j.contains(other.key)) << other.key;
      EXPECT_FALSE(has_line_starting(prom, std::string(other.prometheus) + "{")) << other.key;
    }
  }
}

// Published CSV columns never move: the first release's, in order, then appended ones.
TEST(MetricsSchema, CsvColumnsOnlyAppend) {
  std::string v1 =
      "timestamp,vendor,index,pci_bus_id,uuid,name,utilization_ratio,memory_used_bytes,"
      "memory_total_bytes,temperature_celsius,power_watts,energy_joules,clock_graphics_hertz,"
      "clock_sm_hertz,clock_memory_hertz";
  EXPECT_EQ(metrics_csv_header().substr(0, v1.size() + 1), v1 + ",");
  EXPECT_EQ(metrics_csv_header(), v1 + ",power_limit_watts\n");
}

TEST(MetricsSchema, WorkerCodecCarriesEveryRowAndChecksItsRange) {
  std::vector<SampleTarget> targets = {{*PciAddress::parse("0000:46:00.0"), false}};
  for (const auto& m : device_metrics()) {
    SCOPED_TRACE(std::string(m.key));
    auto sent = with_only(m);
    auto text = worker::encode_samples(targets, {sent}, {});
    auto back = worker::decode_samples(text, targets);
    ASSERT_FALSE(back.error) << *back.error << "\n" << text;
    ASSERT_EQ(back.samples.size(), 1u);
    if (m.scalar) {
      EXPECT_EQ(back.samples[0].*(m.scalar), sent.*(m.scalar)) << text;
    } else {
      EXPECT_EQ(back.samples[0].*(m.labelled), sent.*(m.labelled)) << text;
    }
    // Beyond the range: never sent, and refused when a worker sends it anyway.
    double beyond = m.max * 2;
    auto wild = identity();
    if (m.scalar) {
      wild.*(m.scalar) = beyond;
    } else {
      (wild.*(m.labelled))["x"] = beyond;
    }
    EXPECT_EQ(worker::encode_samples(targets, {wild}, {}).find(std::string(m.wire) + " "),
              std::string::npos);
    std::string line = cat({m.wire, m.labelled ? " x " : " ", std::to_string(beyond)});
    auto bad = worker::decode_samples("sample\ndevice 0000:46:00.0\n" + line + "\nend\n", targets);
    ASSERT_TRUE(bad.error) << line;
    EXPECT_NE(bad.error->find("out of range"), std::string::npos) << *bad.error;
  }
}

TEST(MetricsSchema, LibraryMergeFollowsTheRows) {
  for (const auto& m : device_metrics()) {
    SCOPED_TRACE(std::string(m.key));
    for (auto rule : {MergeRule::library_wins, MergeRule::fill_absent}) {
      auto into = identity();
      merge_library_values(into, with_only(m), rule);
      EXPECT_TRUE(m.set_in(into)) << "an absent kernel value is filled by either rule";
    }
    auto kernel = with_only(m);
    auto library = identity();
    if (m.scalar) {
      library.*(m.scalar) = m.min;
    } else {
      (library.*(m.labelled))[labels_for(m).front()] = m.min;
    }
    auto filled = kernel;
    merge_library_values(filled, DeviceSample(library), MergeRule::fill_absent);
    auto won = kernel;
    merge_library_values(won, DeviceSample(library), MergeRule::library_wins);
    if (m.scalar) {
      EXPECT_EQ(filled.*(m.scalar), value_for(m)) << "fill_absent keeps the kernel's value";
      EXPECT_EQ(won.*(m.scalar), m.min) << "library_wins replaces it";
    } else {
      auto first = labels_for(m).front();
      EXPECT_EQ((filled.*(m.labelled)).at(first), value_for(m));
      EXPECT_EQ((won.*(m.labelled)).at(first), m.min);
    }
  }
}

// Memory used and total come from one source: Level Zero fills them only where sysfs gave
// neither, so a used figure never sits beside another source's total.
TEST(MetricsSchema, MergeGroupComesFromOneSource) {
  DeviceSample library = identity();
  library.memory_used_bytes = 100;
  library.memory_total_bytes = 1000;
  library.utilization_ratio = 0.5;
  auto kernel = identity();
  kernel.memory_used_bytes = 7;  // total unknown to the kernel
  merge_library_values(kernel, DeviceSample(library), MergeRule::fill_absent);
  EXPECT_EQ(kernel.memory_used_bytes, 7);
  EXPECT_FALSE(kernel.memory_total_bytes);
  EXPECT_EQ(kernel.utilization_ratio, 0.5) << "rows outside the group are filled";
  auto empty = identity();
  merge_library_values(empty, DeviceSample(library), MergeRule::fill_absent);
  EXPECT_EQ(empty.memory_used_bytes, 100);
  EXPECT_EQ(empty.memory_total_bytes, 1000);
  auto nvml = identity();
  nvml.memory_used_bytes = 7;
  merge_library_values(nvml, DeviceSample(library), MergeRule::library_wins);
  EXPECT_EQ(nvml.memory_used_bytes, 100);
  EXPECT_EQ(nvml.memory_total_bytes, 1000);
}

// docs/metrics.md carries the table between two markers; it must equal the rows.
TEST(MetricsSchema, DocsListExactlyTheRows) {
  std::ifstream in(test::source_dir() + "/docs/metrics.md");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string doc = buf.str();
  const std::string begin = "<!-- metric table: generated from src/metrics/schema.cc -->\n";
  const std::string end = "<!-- end of metric table -->";
  auto b = doc.find(begin);
  ASSERT_NE(b, std::string::npos) << "docs/metrics.md lacks the marker " << begin;
  b += begin.size();
  auto e = doc.find(end, b);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b, e - b), metrics_markdown_table())
      << "docs/metrics.md is stale; the section between the markers should read:\n"
      << metrics_markdown_table();
}

}  // namespace
}  // namespace anygpu
