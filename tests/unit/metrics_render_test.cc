// Renderers: anygpu.metrics/v1 JSON, CSV, Prometheus text (names, labels, escaping) and the
// frames of `anygpu top`, from snapshots built in the test.
#include <gtest/gtest.h>

#include "metrics/prometheus.h"
#include "metrics/render.h"
#include "metrics/top_view.h"
#include "probe/sysfs_value.h"
#include "util/utf8.h"

namespace anygpu {
namespace {

using namespace std::chrono_literals;

MetricsSnapshot two_devices() {
  MetricsSnapshot s;
  s.timestamp = std::chrono::system_clock::time_point{} + 1764446400123ms;
  DeviceSample a;
  a.vendor = "amd";
  a.index = 0;
  a.pci_bus_id = "0000:05:00.0";
  a.name = "AMD Instinct \"MI300X\"\\ new\nline";
  a.utilization_ratio = 0.37;
  a.memory_used_bytes = 298844160;
  a.memory_total_bytes = 206141652992;
  a.temperature_celsius = 41;
  a.temperatures_celsius = {{"junction", 41}, {"mem", 36}};
  a.power_watts = 137.5;
  a.power_limit_watts = 750;
  a.clocks_hertz = {{"graphics", 132e6}, {"memory", 1300e6}};
  DeviceSample b;  // nothing known but identity
  b.vendor = "nvidia";
  b.index = 0;
  b.pci_bus_id = "0000:18:00.0";
  b.uuid = "GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08";
  b.energy_joules = 123456.789;
  s.devices = {a, b};
  BackendStatus up{"amd", "sysfs", true, s.timestamp - 2s, std::nullopt, std::nullopt};
  BackendStatus down{"nvidia",
                     "nvml",
                     false,
                     {},
                     "libnvidia-ml.so.1: not found",
                     LibraryWorkerStatus{"nvml", 3, LibraryStatus::crashed, 11, std::nullopt}};
  s.backends = {up, down};
  return s;
}

TEST(MetricsRender, JsonSchemaAndAbsentFields) {
  auto j = metrics_to_json(two_devices());
  EXPECT_EQ(j["schema"], "anygpu.metrics/v1");
  EXPECT_EQ(j["timestamp"], "2025-11-29T20:00:00.123Z");
  auto& a = j["devices"][0];
  EXPECT_EQ(a["vendor"], "amd");
  EXPECT_EQ(a["index"], 0);
  EXPECT_EQ(a["memory_total_bytes"].get<int64_t>(), 206141652992);
  EXPECT_TRUE(a["memory_total_bytes"].is_number_integer());
  EXPECT_DOUBLE_EQ(a["utilization_ratio"].get<double>(), 0.37);
  EXPECT_EQ(a["clocks_hertz"]["memory"].get<int64_t>(), 1300000000);
  EXPECT_EQ(a["temperatures_celsius"]["junction"], 41);
  EXPECT_FALSE(a.contains("uuid"));
  EXPECT_FALSE(a.contains("energy_joules"));
  auto& b = j["devices"][1];
  for (const char* k : {"utilization_ratio", "memory_used_bytes", "memory_total_bytes",
                        "temperature_celsius", "power_watts", "clocks_hertz", "name"})
    EXPECT_FALSE(b.contains(k)) << k;
  EXPECT_DOUBLE_EQ(b["energy_joules"].get<double>(), 123456.789);
  EXPECT_EQ(j["backends"][0]["up"], true);
  EXPECT_DOUBLE_EQ(j["backends"][0]["age_seconds"].get<double>(), 2.0);
  EXPECT_EQ(j["backends"][1]["error"], "libnvidia-ml.so.1: not found");
  EXPECT_FALSE(j["backends"][1].contains("last_success"));
  EXPECT_FALSE(j["backends"][0].contains("library")) << "sysfs has no library worker";
  EXPECT_EQ(j["backends"][1]["library"],
            (nlohmann::ordered_json{
                {"api", "nvml"}, {"crashes", 3}, {"status", "crashed"}, {"signal", 11}}));
}

TEST(MetricsRender, CsvHeaderAndEmptyCells) {
  auto s = two_devices();
  EXPECT_EQ(metrics_csv_header(),
            "timestamp,vendor,index,pci_bus_id,uuid,name,utilization_ratio,memory_used_bytes,"
            "memory_total_bytes,temperature_celsius,power_watts,energy_joules,"
            "clock_graphics_hertz,clock_sm_hertz,clock_memory_hertz,power_limit_watts\n");
  auto rows = metrics_csv_rows(s);
  auto nl = rows.find('\n', rows.find("line") + 1);
  std::string first = rows.substr(0, nl);
  EXPECT_EQ(first,
            "2025-11-29T20:00:00.123Z,amd,0,0000:05:00.0,,\"AMD Instinct \"\"MI300X\"\"\\ "
            "new\nline\",0.37,298844160,206141652992,41,137.5,,132000000,,1300000000,750");
  EXPECT_EQ(rows.substr(nl + 1),
            "2025-11-29T20:00:00.123Z,nvidia,0,0000:18:00.0,GPU-445d2601-9853-a7c7-c87c-"
            "e2ff0e3d2f08,,,,,,,123456.789,,,,\n");
}

// A label value that is not UTF-8 (a Latin-1 pci.ids name, a name cut mid-character) would make
// a scraper drop the whole page: each ill-formed subpart becomes U+FFFD.
TEST(MetricsRender, PrometheusLabelValuesAreValidUtf8) {
  auto s = two_devices();
  s.devices[0].name = "Radeon \xe9t\xc3\xa9 \xed\xa0\x80 \xf0\x9f\x98";
  auto text = render_prometheus(s, s.timestamp);
  EXPECT_NE(text.find("model=\"Radeon \xef\xbf\xbdt\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
                      "\xef\xbf\xbd\""),
            std::string::npos)
      << text;
  EXPECT_EQ(valid_utf8("ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong '/'
  EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"),
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // past U+10FFFF
  EXPECT_EQ(valid_utf8("\xe2\x82"), "\xef\xbf\xbd");              // truncated: one subpart
  EXPECT_EQ(valid_utf8(""), "");
}

TEST(MetricsRender, PrometheusNamesLabelsAndEscaping) {
  auto s = two_devices();
  auto text = render_prometheus(s, s.timestamp + 500ms);
  auto has = [&](const std::string& line) { return text.find(line + "\n") != std::string::npos; };
  const std::string amd =
      "vendor=\"amd\",gpu=\"0\",pci_bus_id=\"0000:05:00.0\",model=\"AMD Instinct "
      "\\\"MI300X\\\"\\\\ new\\nline\"";
  const std::string nv =
      "vendor=\"nvidia\",gpu=\"0\",pci_bus_id=\"0000:18:00.0\",uuid=\"GPU-445d2601-9853-a7c7-"
      "c87c-e2ff0e3d2f08\"";
  EXPECT_TRUE(has("# TYPE anygpu_gpu_utilization_ratio gauge")) << text;
  EXPECT_TRUE(has("# TYPE anygpu_gpu_energy_joules_total counter")) << text;
  EXPECT_TRUE(has("anygpu_gpu_info{" + amd + "} 1")) << text;
  EXPECT_TRUE(has("anygpu_gpu_info{" + nv + "} 1")) << text;
  EXPECT_TRUE(has("anygpu_gpu_utilization_ratio{" + amd + "} 0.37")) << text;
  EXPECT_TRUE(has("anygpu_gpu_memory_total_bytes{" + amd + "} 206141652992")) << text;
  EXPECT_TRUE(has("anygpu_gpu_temperature_celsius{" + amd + "} 41")) << text;
  EXPECT_TRUE(has("anygpu_gpu_sensor_temperature_celsius{" + amd + ",sensor=\"mem\"} 36")) << text;
  EXPECT_TRUE(has("anygpu_gpu_power_watts{" + amd + "} 137.5")) << text;
  EXPECT_TRUE(has("anygpu_gpu_power_limit_watts{" + amd + "} 750")) << text;
  EXPECT_TRUE(has("anygpu_gpu_energy_joules_total{" + nv + "} 123456.789")) << text;
  EXPECT_TRUE(has("anygpu_gpu_clock_hertz{" + amd + ",clock=\"memory\"} 1300000000")) << text;
  EXPECT_TRUE(has("anygpu_backend_up{vendor=\"amd\",source=\"sysfs\"} 1")) << text;
  EXPECT_TRUE(has("anygpu_backend_up{vendor=\"nvidia\",source=\"nvml\"} 0")) << text;
  EXPECT_TRUE(has("anygpu_sample_age_seconds{vendor=\"amd\",source=\"sysfs\"} 2.5")) << text;
  EXPECT_TRUE(has("# TYPE anygpu_backend_crashes_total counter")) << text;
  EXPECT_TRUE(has("anygpu_backend_crashes_total{vendor=\"nvidia\",source=\"nvml\"} 3")) << text;
  EXPECT_EQ(text.find("anygpu_backend_crashes_total{vendor=\"amd\""), std::string::npos)
      << "only backends with a library worker count crashes";
  EXPECT_EQ(text.find("anygpu_sample_age_seconds{vendor=\"nvidia\""), std::string::npos)
      << "a backend that never answered has no age";
  EXPECT_EQ(text.find("anygpu_gpu_utilization_ratio{" + nv), std::string::npos)
      << "absent is absent, never 0";
  // Each family's HELP and TYPE exactly once, before its samples.
  for (const char* f : {"anygpu_gpu_info", "anygpu_gpu_clock_hertz", "anygpu_backend_up"}) {
    auto help = text.find(std::string("# HELP ") + f + " ");
    ASSERT_NE(help, std::string::npos) << f;
    EXPECT_EQ(text.find(std::string("# HELP ") + f + " ", help + 1), std::string::npos) << f;
    EXPECT_LT(help, text.find(std::string(f) + "{")) << f;
  }
}

TEST(MetricsRender, TopFrameFitsTheTerminal) {
  MetricsSnapshot s = two_devices();
  for (int i = 1; i < 8; ++i) {
    auto d = s.devices[0];
    d.index = i;
    s.devices.push_back(d);
  }
  auto lines = render_top_frame(s, {.width = 100, .height = 40, .color = false}, 1.0);
  int device_lines = 0;
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 100u) << l;
    if (l.find("GPU[") != std::string::npos) ++device_lines;
  }
  EXPECT_EQ(device_lines, 9);
  EXPECT_NE(lines.back().find("backend nvidia/nvml down"), std::string::npos) << lines.back();
  // 37 % utilization on a bar: a third of it filled; absent values read n/a.
  bool na = false;
  for (const auto& l : lines) na = na || l.find("n/a]") != std::string::npos;
  EXPECT_TRUE(na);

  auto small = render_top_frame(s, {.width = 60, .height = 10, .color = false}, 1.0);
  EXPECT_LE(small.size(), 10u);
  bool more = false;
  for (const auto& l : small) {
    EXPECT_LE(l.size(), 60u) << l;
    more = more || l.find("more devices") != std::string::npos;
  }
  EXPECT_TRUE(more);

  auto coloured = render_top_frame(s, {.width = 100, .height = 40, .color = true}, 1.0);
  EXPECT_NE(coloured[2].find("\x1b["), std::string::npos);
  for (const auto& l : lines) EXPECT_EQ(l.find('\x1b'), std::string::npos) << "NO_COLOR";
}

TEST(MetricsSysfsValue, Parser) {
  using metrics::parse_sysfs_integer;
  EXPECT_EQ(*parse_sysfs_integer("42\n", 0, 100), 42);
  EXPECT_EQ(*parse_sysfs_integer("  -5000 ", -10000, 0), -5000);
  EXPECT_EQ(*parse_sysfs_integer("+7", 0, 10), 7);
  for (const char* bad : {"", "\n", "abc", "4 2", "0x10", "1e3", "12.5", "+-1", "--1", "+",
                          "99999999999999999999", "-99999999999999999999", "101", "-1"}) {
    auto r = parse_sysfs_integer(bad, 0, 100);
    EXPECT_FALSE(r.ok()) << "'" << bad << "'";
    if (!r.ok()) {
      EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    }
  }
}

}  // namespace
}  // namespace anygpu
