// The exporter's health series: the finding window (a finding counts while seen within the
// window, then stops: recovery shows), the background monitor, and the rendered families.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "exporter/health_monitor.h"
#include "health/window.h"

namespace anygpu::exporter {
namespace {

using health::FindingWindow;
using health::HealthReport;
using namespace std::chrono_literals;

health::SourceReading source(std::string name, bool read, std::string reason = {}) {
  return {std::move(name), read, true, std::move(reason), read ? "" : "why"};
}

// Two NVIDIA devices whose PCI state and kernel log (node-wide) were read unless told otherwise.
HealthReport report_with(std::vector<Finding> findings, std::vector<Finding> host = {},
                         bool kernel_log = true) {
  HealthReport r;
  auto log = source("kernel-log", kernel_log, kernel_log ? "" : "permission-denied");
  r.sources = {log};
  r.devices.push_back({"0000:18:00.0",
                       "nvidia",
                       0,
                       std::move(findings),
                       {source("pcie", true), source("nvml", false, "disabled"), log}});
  r.devices.push_back(
      {"0000:2a:00.0", "nvidia", 1, {}, {source("pcie", true), source("nvml", true), log}});
  r.devices[0].sources[1].essential = false;
  r.devices[1].sources[1].essential = false;
  r.host = std::move(host);
  return r;
}

Finding xid(int n, std::string suffix = "") {
  return {"xid", Severity::error, "Xid " + std::to_string(n) + ": something" + suffix, "", ""};
}

TEST(HealthWindow, CountsDistinctFindingsAndForgetsThemAfterTheWindow) {
  FindingWindow w(600s);
  auto t0 = FindingWindow::Clock::time_point{} + 10000s;
  w.observe(t0,
            report_with({xid(79), xid(48), {"pcie.link.degraded", Severity::warning, "x8", "", ""}},
                        {{"sxid", Severity::warning, "SXid 12028", "", ""}}));
  auto c = w.counts(t0);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].pci_bus_id, "");  // the host finding sorts first
  EXPECT_EQ(c[0].code, "sxid");
  EXPECT_EQ(c[1].code, "pcie.link.degraded");
  EXPECT_EQ(c[2].code, "xid");
  EXPECT_EQ(c[2].findings, 2u);
  EXPECT_EQ(c[2].pci_bus_id, "0000:18:00.0");

  // The same Xid again, now with a repeat count: still one finding.
  w.observe(t0 + 300s, report_with({xid(79, " (3 times)")}));
  c = w.counts(t0 + 300s);
  ASSERT_EQ(c.back().code, "xid");
  EXPECT_EQ(c.back().findings, 2u);  // 79 seen now, 48 five minutes ago

  // Past the window only what was seen recently counts; past it again, nothing: recovered.
  w.observe(t0 + 700s, report_with({}));
  c = w.counts(t0 + 700s);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].code, "xid");
  EXPECT_EQ(c[0].findings, 1u);
  w.observe(t0 + 1000s, report_with({}));
  EXPECT_TRUE(w.counts(t0 + 1000s).empty());
}

TEST(HealthWindow, RepeatCountIsStrippedOnlyWhenItIsOne) {
  EXPECT_EQ(health::without_repeat_count("Xid 79: x (12 times)"), "Xid 79: x");
  EXPECT_EQ(health::without_repeat_count("Xid 79: x (many times)"), "Xid 79: x (many times)");
  EXPECT_EQ(health::without_repeat_count("( times)"), "( times)");
  EXPECT_EQ(health::without_repeat_count(" times)"), " times)");
  EXPECT_EQ(health::without_repeat_count(""), "");
}

TEST(HealthMonitor, EvaluatesInTheBackgroundWithTheWindowAsSince) {
  std::atomic<int> calls{0};
  std::atomic<double> since{-1};
  HealthMonitor m(
      [&](double s) -> Result<HealthReport> {
        since = s;
        if (++calls == 2) return internal_error("kmsg vanished");
        return report_with({xid(79)});
      },
      {.interval = 20ms, .window = 120s, .log = {}});
  EXPECT_EQ(calls.load(), 1);  // the first evaluation runs before the constructor returns
  EXPECT_EQ(since.load(), 120.0);
  auto first = m.latest();
  ASSERT_TRUE(first);
  ASSERT_EQ(first->devices.size(), 2u);
  EXPECT_EQ(first->devices[0].health, health::Health::critical);
  EXPECT_EQ(first->devices[1].health, health::Health::ok);
  for (int i = 0; i < 200 && calls < 3; ++i) std::this_thread::sleep_for(5ms);
  m.stop();
  EXPECT_GE(calls.load(), 3);
  auto last = m.latest();
  ASSERT_TRUE(last);
  EXPECT_FALSE(last->error);  // a failed evaluation is replaced by the next good one
  EXPECT_EQ(last->devices.size(), 2u);
}

TEST(HealthMonitor, AFailedEvaluationKeepsThePreviousStateAndSaysSo) {
  std::atomic<int> calls{0};
  HealthMonitor m(
      [&](double) -> Result<HealthReport> {
        if (++calls >= 2) return internal_error("kmsg vanished");
        return report_with({xid(79)});
      },
      {.interval = 10ms, .window = 60s, .log = {}});
  for (int i = 0; i < 200 && calls < 2; ++i) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(10ms);
  m.stop();
  auto s = m.latest();
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->error);
  EXPECT_EQ(*s->error, "kmsg vanished");
  EXPECT_EQ(s->devices[0].health, health::Health::critical);
}

TEST(HealthSeries, RendersWithTheSnapshotsDeviceLabels) {
  HealthSeries s;
  s.devices = {{"0000:18:00.0", "nvidia", 0, health::Health::critical, {}},
               {"0000:2a:00.0", "nvidia", 1, health::Health::warning, {}}};
  s.findings = {{"", "", 0, "sxid", Severity::warning, 1},
                {"0000:18:00.0", "nvidia", 0, "xid", Severity::error, 2}};
  s.window = 900s;
  auto now = std::chrono::system_clock::now();
  s.evaluated_at = now - 3s;
  MetricsSnapshot snap;
  DeviceSample d;
  d.vendor = "nvidia";
  d.index = 0;
  d.pci_bus_id = "0000:18:00.0";
  d.uuid = "GPU-1";
  d.name = "NVIDIA \"H100\"";
  snap.devices.push_back(d);
  auto text = render_health_prometheus(s, snap, now);
  EXPECT_NE(text.find("# TYPE anygpu_gpu_health gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("anygpu_gpu_health{vendor=\"nvidia\",gpu=\"0\",pci_bus_id=\"0000:18:00.0\","
                      "uuid=\"GPU-1\",model=\"NVIDIA \\\"H100\\\"\"} 2\n"),
            std::string::npos)
      << text;
  // Not in the snapshot: the health's own identity.
  EXPECT_NE(
      text.find("anygpu_gpu_health{vendor=\"nvidia\",gpu=\"1\",pci_bus_id=\"0000:2a:00.0\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_health_findings{code=\"sxid\",severity=\"warning\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pci_bus_id=\"0000:18:00.0\",uuid=\"GPU-1\",model=\"NVIDIA \\\"H100\\\"\","
                      "code=\"xid\",severity=\"critical\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_health_window_seconds 900\n"), std::string::npos);
  EXPECT_NE(text.find("anygpu_health_age_seconds 3\n"), std::string::npos) << text;
}

TEST(HealthSeries, NoFindingsMeansNoFindingsFamily) {
  HealthSeries s;
  s.devices = {{"0000:18:00.0", "nvidia", 0, health::Health::ok, {}}};
  auto text = render_health_prometheus(s, {}, std::chrono::system_clock::now());
  EXPECT_EQ(text.find("anygpu_health_findings"), std::string::npos);
  EXPECT_NE(text.find("} 0\n"), std::string::npos);
}

TEST(HealthSeries, UnknownIsItsOwnValueAndEverySourceHasASeries) {
  EXPECT_EQ(health_series_value(health::Health::ok), 0);
  EXPECT_EQ(health_series_value(health::Health::warning), 1);
  EXPECT_EQ(health_series_value(health::Health::critical), 2);
  EXPECT_EQ(health_series_value(health::Health::unknown), 3);
  HealthSeries s;
  s.node_sources = {source("kernel-log", false, "permission-denied")};
  s.devices = {{"0000:18:00.0",
                "nvidia",
                0,
                health::Health::unknown,
                {source("pcie", true), source("nvml", false, "absent")}}};
  auto text = render_health_prometheus(s, {}, std::chrono::system_clock::now());
  const std::string labels = "vendor=\"nvidia\",gpu=\"0\",pci_bus_id=\"0000:18:00.0\"";
  EXPECT_NE(text.find("anygpu_gpu_health{" + labels + "} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE anygpu_health_source_up gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("anygpu_health_source_up{source=\"kernel-log\"} 0\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_health_source_up{" + labels + ",source=\"pcie\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_health_source_up{" + labels + ",source=\"nvml\"} 0\n"),
            std::string::npos)
      << text;
}

TEST(HealthMonitor, KeepsTheNodesSourcesApartFromTheDevices) {
  HealthMonitor m([](double) -> Result<HealthReport> { return report_with({}, {}, false); },
                  {.interval = 1h, .window = 60s, .log = [](const std::string&) {}});
  auto s = m.latest();
  m.stop();
  ASSERT_TRUE(s);
  ASSERT_EQ(s->node_sources.size(), 1u);
  EXPECT_EQ(s->node_sources[0].source, "kernel-log");
  ASSERT_EQ(s->devices.size(), 2u);
  ASSERT_EQ(s->devices[0].sources.size(), 2u);  // pcie and nvml; the kernel log is the node's
  EXPECT_EQ(s->devices[0].sources[1].source, "nvml");
  // The kernel log is essential and unread: nothing found is unknown, not ok.
  EXPECT_EQ(s->devices[1].health, health::Health::unknown);
}

TEST(HealthMonitor, LogsASourceOnceWhenItBecomesUnreadableAndWhenItRecovers) {
  std::mutex mu;
  std::vector<std::string> lines;
  std::atomic<int> calls{0};
  // Kernel log: unread, unread (said once), read (recovered), read, unread again.
  HealthMonitor m(
      [&](double) -> Result<HealthReport> {
        int n = ++calls;
        return report_with({}, {}, n == 3 || n == 4);
      },
      {.interval = 5ms, .window = 60s, .log = [&](const std::string& line) {
         std::lock_guard lock(mu);
         lines.push_back(line);
       }});
  for (int i = 0; i < 400 && calls < 6; ++i) std::this_thread::sleep_for(5ms);
  m.stop();
  std::lock_guard lock(mu);
  std::vector<std::string> log_lines, nvml_lines;
  for (const auto& l : lines)
    (l.find("kernel-log") != std::string::npos ? log_lines : nvml_lines).push_back(l);
  ASSERT_GE(log_lines.size(), 3u) << testing::PrintToString(lines);
  EXPECT_EQ(log_lines[0], "cannot read kernel-log: permission-denied (why)");
  EXPECT_EQ(log_lines[1], "reading kernel-log again");
  EXPECT_EQ(log_lines[2], "cannot read kernel-log: permission-denied (why)");
  EXPECT_EQ(log_lines.size(), 3u) << testing::PrintToString(lines);
  // GPU 0's NVML is unread every time: said once, naming the device.
  ASSERT_EQ(nvml_lines.size(), 1u) << testing::PrintToString(lines);
  EXPECT_EQ(nvml_lines[0], "cannot read nvml for 1 device(s) 0000:18:00.0: disabled (why)");
}

}  // namespace
}  // namespace anygpu::exporter
