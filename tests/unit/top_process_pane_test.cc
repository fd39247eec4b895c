// `anygpu top`'s process pane: the columns, the owner's short form, the devices by their index
// in the device list, and the height and width it is given.
#include <gtest/gtest.h>

#include "metrics/top_view.h"

namespace anygpu {
namespace {

MetricsSnapshot two_devices() {
  MetricsSnapshot s;
  for (int i = 0; i < 2; ++i) {
    DeviceSample d;
    d.vendor = "amd";
    d.index = i;
    d.pci_bus_id = i == 0 ? "0000:05:00.0" : "0000:26:00.0";
    d.name = "AMD Instinct MI300X";
    s.devices.push_back(d);
  }
  return s;
}

ps::ProcessScan holders(int n) {
  ps::ProcessScan scan;
  for (int i = 0; i < n; ++i) {
    ps::ProcessInfo p;
    p.pid = 100 + i;
    p.user = "alice";
    p.command = "python3";
    p.devices = {"0000:05:00.0"};
    scan.processes.push_back(p);
  }
  return scan;
}

TEST(TopProcessPane, ColumnsOwnersAndDeviceIndices) {
  ps::ProcessScan scan;
  ps::ProcessInfo pod;
  pod.pid = 41230;
  pod.user = "alice";
  pod.command = "a-very-long-command-name";
  pod.devices = {"0000:05:00.0", "0000:26:00.0"};
  pod.memory_bytes = 3ull << 30;
  pod.attribution.pod_uid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  pod.attribution.container = ps::Attribution::Container{"containerd", std::string(64, 'a')};
  ps::ProcessInfo job;
  job.pid = 7;
  job.command = "train";
  job.devices = {"0000:99:00.0"};  // not in the device list: its bus id
  job.memory_bytes = 512ull << 20;
  job.attribution.slurm = ps::Attribution::Slurm{"77", "batch"};
  ps::ProcessInfo ctr;
  ctr.pid = 8;
  ctr.user = "root";
  ctr.command = "x";
  ctr.devices = {"0000:26:00.0"};
  ctr.attribution.container = ps::Attribution::Container{"docker", "4a5b6c7d8e9f0011"};
  scan.processes = {job, ctr, pod};
  scan.hidden = 2;
  auto lines = render_process_pane(scan, two_devices(), 120, 10);
  std::vector<std::string> want{
      "     PID USER       COMMAND          GPUS      MEMORY  OWNER  (2 processes unreadable)",
      "       7 ?          train            0000:99:00.0    512M  job:77.batch",
      "       8 root       x                1              -  docker:4a5b6c7d8e9f",
      "   41230 alice      a-very-long-comm 0,1         3.0G  pod:0f1e2d3c",
  };
  EXPECT_EQ(lines, want);
  EXPECT_EQ(short_owner({}), "-");
}

TEST(TopProcessPane, HeightAndWidth) {
  auto lines = render_process_pane(holders(10), two_devices(), 30, 4);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[3], "... 8 more processes");
  for (const auto& l : lines) EXPECT_LE(l.size(), 30u) << l;
  // Exactly enough room: every process, no count line.
  EXPECT_EQ(render_process_pane(holders(3), two_devices(), 80, 4).size(), 4u);
  EXPECT_TRUE(render_process_pane(holders(3), two_devices(), 80, 0).empty());
  auto none = render_process_pane({}, two_devices(), 80, 5);
  ASSERT_EQ(none.size(), 2u);
  EXPECT_NE(none[1].find("no processes hold a device"), std::string::npos);
}

TEST(TopProcessPane, BelowTheDevicesWithinTheHeight) {
  auto s = two_devices();
  auto scan = holders(30);
  auto frame = render_top_frame(s, {.width = 100, .height = 12, .color = false}, 1.0, &scan);
  ASSERT_EQ(frame.size(), 12u);
  EXPECT_EQ(frame[5], "");
  EXPECT_EQ(frame[6].substr(0, 12), "     PID USE");
  EXPECT_EQ(frame.back(), "... 26 more processes");
  // Without a scan, the frame is the device list alone.
  EXPECT_EQ(render_top_frame(s, {.width = 100, .height = 12, .color = false}, 1.0).size(), 5u);
}

// Names from /etc/passwd, /proc/PID/comm and the cgroup path are the host's: a control
// sequence in them arrives escaped, in the interactive frame and the plain output alike.
TEST(TopProcessPane, HostStringsCannotDriveTheTerminal) {
  ps::ProcessScan scan;
  ps::ProcessInfo p;
  p.pid = 9;
  p.user = "ev\x1b[2J";
  p.command = "x\x1b]0;t\x07";
  p.devices = {"0000:05:00.0"};
  p.attribution.slurm = ps::Attribution::Slurm{"1\x1b[A", std::nullopt};
  scan.processes = {p};
  auto lines = render_process_pane(scan, two_devices(), 200, 10);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].find('\x1b'), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find('\x07'), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("ev\\x1b[2J"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("job:1\\x1b[A"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace anygpu
