// The exporter's process series: totals per device and per attribution (never per pid), the
// rendered families, and the background monitor's rescans.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "exporter/process_monitor.h"

namespace anygpu::exporter {
namespace {

using namespace std::chrono_literals;

Inventory two_gpus() {
  Inventory inv;
  for (int i = 0; i < 2; ++i) {
    Device d;
    d.vendor = "amd";
    d.index = i;
    d.pci.address = *PciAddress::parse(i == 0 ? "0000:05:00.0" : "0000:26:00.0");
    inv.devices.push_back(d);
  }
  return inv;
}

ps::ProcessInfo holder(int pid, std::map<std::string, uint64_t> memory,
                       std::optional<std::string> pod = {}, std::optional<std::string> job = {}) {
  ps::ProcessInfo p;
  p.pid = pid;
  for (const auto& [bus, bytes] : memory) {
    p.devices.push_back(bus);
    p.memory_bytes = p.memory_bytes.value_or(0) + bytes;
  }
  p.memory_by_device = std::move(memory);
  p.attribution.pod_uid = std::move(pod);
  if (job) p.attribution.slurm = ps::Attribution::Slurm{*job, "0"};
  return p;
}

TEST(ExporterProcesses, AggregatesByDeviceAndAttributionNotByPid) {
  ps::ProcessScan scan;
  scan.processes.push_back(holder(10, {{"0000:05:00.0", 100}}, "pod-a"));
  scan.processes.push_back(holder(11, {{"0000:05:00.0", 50}, {"0000:26:00.0", 7}}, "pod-a"));
  scan.processes.push_back(holder(12, {{"0000:26:00.0", 1000}}, {}, "42"));
  scan.processes.push_back(holder(13, {{"0000:05:00.0", 1}}));
  auto no_memory = holder(14, {});
  no_memory.devices = {"0000:26:00.0", "0000:99:00.0"};  // a bus the inventory does not list
  scan.processes.push_back(no_memory);
  scan.hidden = 3;
  auto s = aggregate_processes(scan, two_gpus());
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].processes, 3u);
  EXPECT_EQ(s.devices[1].processes, 3u);
  ASSERT_EQ(s.groups.size(), 4u);
  // (bus, pod, container, job) order: the unattributed group sorts first.
  EXPECT_EQ(s.groups[0].pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(s.groups[0].pod_uid, "");
  EXPECT_EQ(s.groups[0].memory_bytes, 1u);
  EXPECT_EQ(s.groups[1].pod_uid, "pod-a");
  EXPECT_EQ(s.groups[1].memory_bytes, 150u);  // two processes, one series
  EXPECT_EQ(s.groups[2].pci_bus_id, "0000:26:00.0");
  EXPECT_EQ(s.groups[2].slurm_job, "42");
  EXPECT_EQ(s.groups[2].memory_bytes, 1000u);
  EXPECT_EQ(s.groups[3].pod_uid, "pod-a");
  EXPECT_EQ(s.groups[3].memory_bytes, 7u);
  EXPECT_EQ(s.hidden, 3);

  MetricsSnapshot snap;  // no samples: the inventory's labels
  auto text = render_processes_prometheus(s, snap, s.scanned_at + 2s);
  EXPECT_NE(text.find("# TYPE anygpu_processes gauge\n"
                      "anygpu_processes{vendor=\"amd\",gpu=\"0\",pci_bus_id=\"0000:05:00.0\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_process_memory_bytes{vendor=\"amd\",gpu=\"0\",pci_bus_id=\"0000:"
                      "05:00.0\",pod_uid=\"pod-a\"} 150\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_process_memory_bytes{vendor=\"amd\",gpu=\"1\",pci_bus_id=\"0000:"
                      "26:00.0\",slurm_job=\"42\"} 1000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_processes_hidden 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("anygpu_processes_age_seconds 2\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("pid"), std::string::npos) << "no per-process series";
}

// A pod the kubelet named carries namespace and pod beside its uid (kube-state-metrics' label
// names); processes of the pod the kubelet did not name stay a series of their own.
TEST(ExporterProcesses, NamedPodsCarryNamespaceAndPod) {
  ps::ProcessScan scan;
  auto named = holder(10, {{"0000:05:00.0", 100}}, "pod-a");
  named.pod_name = "train-0";
  named.pod_namespace = "ml";
  scan.processes.push_back(named);
  auto second = holder(11, {{"0000:05:00.0", 20}}, "pod-a");
  second.pod_name = "train-0";
  second.pod_namespace = "ml";
  scan.processes.push_back(second);
  scan.processes.push_back(holder(12, {{"0000:05:00.0", 3}}, "pod-a"));  // not named
  auto s = aggregate_processes(scan, two_gpus());
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].pod_name, "");
  EXPECT_EQ(s.groups[0].memory_bytes, 3u);
  EXPECT_EQ(s.groups[1].pod_name, "train-0");
  EXPECT_EQ(s.groups[1].pod_namespace, "ml");
  EXPECT_EQ(s.groups[1].memory_bytes, 120u);
  auto text = render_processes_prometheus(s, MetricsSnapshot{}, s.scanned_at);
  EXPECT_NE(text.find("anygpu_process_memory_bytes{vendor=\"amd\",gpu=\"0\",pci_bus_id=\"0000:"
                      "05:00.0\",pod_uid=\"pod-a\",namespace=\"ml\",pod=\"train-0\"} 120\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pci_bus_id=\"0000:05:00.0\",pod_uid=\"pod-a\"} 3\n"), std::string::npos)
      << text;
}

TEST(ExporterProcesses, MonitorScansOnItsIntervalNotOnRead) {
  std::atomic<int> scans{0};
  ProcessMonitor m(
      [&] {
        ProcessSeries s;
        s.hidden = ++scans;
        return s;
      },
      50ms);
  EXPECT_EQ(m.latest()->hidden, 1);  // scanned once before the constructor returns
  for (int i = 0; i < 100; ++i) (void)m.latest();
  EXPECT_LE(scans.load(), 2) << "reads do not scan";
  for (int i = 0; i < 100 && m.latest()->hidden < 3; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_GE(m.latest()->hidden, 3);
  m.stop();
  int after = scans.load();
  std::this_thread::sleep_for(120ms);
  EXPECT_EQ(scans.load(), after);
}

}  // namespace
}  // namespace anygpu::exporter
