// Occupancy criteria (free_memory_gb, utilization, holders): parsing with located errors, the
// judgement of one unit (unknown never passes), selection with a reason per rejected device in
// the reasons and the JSON, and the occupancy read from one metrics sample and one process scan
// (ended holders left out, a /proc that cannot be read whole making holders unknown).
#include <gtest/gtest.h>

#include <filesystem>

#include "app/occupancy.h"
#include "select/occupancy.h"
#include "select/render.h"
#include "select/select.h"
#include "test_support.h"

namespace anygpu {

namespace {

const std::string kFile = "/cfg/accelerator-config.yaml";

Result<AcceleratorConfig> parse(const std::string& text) {
  return parse_accelerator_config(text, kFile);
}

AcceleratorConfig config(const std::string& text) {
  auto c = parse(text);
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? *c : AcceleratorConfig{};
}

void expect_located(const std::string& text, int line, int column, const std::string& needle) {
  auto r = parse(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  auto prefix = kFile + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  EXPECT_EQ(r.error().message.rfind(prefix, 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

std::string rule(const std::string& criterion) {
  return "device_selection_policy:\n  - priority: 1\n    criteria:\n      - " + criterion + "\n";
}

// The eight MI300X of the fixture, in index order.
const std::vector<std::string> kBuses = {"0000:05:00.0", "0000:26:00.0", "0000:46:00.0",
                                         "0000:65:00.0", "0000:85:00.0", "0000:a6:00.0",
                                         "0000:c6:00.0", "0000:e5:00.0"};

// Every device idle, empty and unheld.
Occupancy all_free() {
  Occupancy o;
  for (const auto& b : kBuses) o[b] = UnitOccupancy{uint64_t{150} << 30, 0.0, 0, "", "", ""};
  return o;
}

Selection pick(const std::string& text, const Occupancy& occupancy) {
  SelectInputs in;
  in.occupancy = occupancy;
  auto s = select_devices(test::fixture_inventory("mi300x-8x"), config(text), in);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

std::vector<std::string> chosen(const Selection& s) {
  std::vector<std::string> out;
  for (const auto& d : s.devices) out.push_back(d.pci.address.str());
  return out;
}

bool has_reason(const Selection& s, const std::string& text) {
  return std::find(s.reasons.begin(), s.reasons.end(), text) != s.reasons.end();
}

}  // namespace

TEST(OccupancyConfig, EachCriterionParses) {
  auto c = config(R"(device_selection_policy:
  - priority: 1
    criteria:
      - {type: free_memory_gb, min: 40}
      - {type: utilization, max: 0.25}
      - {type: holders, max: 0}
  - priority: 2
    criteria:
      - {type: utilization, max: 30%}
      - {type: free_memory_gb, min: 0}
      - {type: holders, max: 2}
)");
  ASSERT_EQ(c.policy.size(), 2u);
  const auto& a = c.policy[0].criteria;
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].type, CriterionType::free_memory_gb);
  EXPECT_EQ(a[0].min_number.value_or(-1), 40.0);
  EXPECT_EQ(a[1].type, CriterionType::utilization);
  EXPECT_DOUBLE_EQ(a[1].max_number.value_or(-1), 0.25);
  EXPECT_EQ(a[2].type, CriterionType::holders);
  EXPECT_EQ(a[2].max_number.value_or(-1), 0.0);
  EXPECT_EQ(to_string(a[2].type), "holders");
  const auto& b = c.policy[1].criteria;
  EXPECT_DOUBLE_EQ(b[0].max_number.value_or(-1), 0.30);  // "30%" is the ratio 0.3
  EXPECT_EQ(b[1].min_number.value_or(-1), 0.0);
  EXPECT_EQ(b[2].max_number.value_or(-1), 2.0);
  EXPECT_EQ(a[0].where, kFile + ":4:9");
  EXPECT_TRUE(uses_occupancy(c));
  EXPECT_FALSE(uses_occupancy(config(rule("{type: memory_gb, min: 40}"))));
  EXPECT_FALSE(uses_occupancy(config("")));
  // The limits themselves are values.
  EXPECT_DOUBLE_EQ(
      config(rule("{type: utilization, max: 1}")).policy[0].criteria[0].max_number.value_or(-1),
      1.0);
  EXPECT_DOUBLE_EQ(
      config(rule("{type: utilization, max: 100%}")).policy[0].criteria[0].max_number.value_or(-1),
      1.0);
  EXPECT_DOUBLE_EQ(
      config(rule("{type: utilization, max: 0%}")).policy[0].criteria[0].max_number.value_or(-1),
      0.0);
}

TEST(OccupancyConfig, MalformedCriteriaAreLocated) {
  // Negative, not a number, out of range: at the value.
  expect_located(rule("{type: free_memory_gb, min: -1}"), 4, 37,
                 "free_memory_gb min: expected a non-negative number, got '-1'");
  expect_located(rule("{type: free_memory_gb, min: lots}"), 4, 37, "got 'lots'");
  expect_located(rule("{type: utilization, max: 30}"), 4, 34,
                 "utilization max: expected a ratio from 0 to 1 (0.3) or a percentage from 0% to "
                 "100% (30%), got '30'");
  expect_located(rule("{type: utilization, max: 1.5}"), 4, 34, "got '1.5'");
  expect_located(rule("{type: utilization, max: 101%}"), 4, 34, "got '101%'");
  expect_located(rule("{type: utilization, max: -0.1}"), 4, 34, "got '-0.1'");
  expect_located(rule("{type: utilization, max: \"%\"}"), 4, 34, "got '%'");
  expect_located(rule("{type: utilization, max: nan}"), 4, 34, "got 'nan'");
  expect_located(rule("{type: holders, max: -1}"), 4, 30,
                 "holders max: expected a whole number from 0 to 65536, got '-1'");
  expect_located(rule("{type: holders, max: 1.5}"), 4, 30, "got '1.5'");
  // A wrong key at the key, with a suggestion; a missing one at the criterion.
  expect_located(rule("{type: utilization, min: 0.5}"), 4, 29, "unknown key 'min'");
  expect_located(rule("{type: holders, maks: 1}"), 4, 25, "did you mean 'max'");
  expect_located(rule("{type: free_memory_gb, max: 10}"), 4, 32, "unknown key 'max'");
  expect_located(rule("{type: holders}"), 4, 9, "max");
  expect_located(rule("{type: free_memory_gb}"), 4, 9, "min");
  expect_located(rule("{type: utilization, max: [0.5]}"), 4, 34, "utilization max");
  // An unknown type names the near one and lists the new ones.
  expect_located(rule("{type: free_memory, min: 4}"), 4, 16, "did you mean 'free_memory_gb'");
  expect_located(rule("{type: holder, max: 1}"), 4, 16, "did you mean 'holders'");
  expect_located(rule("{type: busy, max: 1}"), 4, 16, "free_memory_gb, utilization, holders");
  expect_located(rule("{min: 1}"), 4, 9, "free_memory_gb, utilization, holders");
}

TEST(OccupancyJudge, ValuesLimitsAndUnknown) {
  auto crit = [](const std::string& text) { return config(rule(text)).policy[0].criteria[0]; };
  auto free40 = crit("{type: free_memory_gb, min: 40}");
  auto busy50 = crit("{type: utilization, max: 50%}");
  auto held1 = crit("{type: holders, max: 1}");
  UnitOccupancy o{uint64_t{40} << 30, 0.5, 1, "", "", ""};
  std::string why;
  EXPECT_TRUE(occupancy_meets(&o, free40, &why));  // limits are inclusive
  EXPECT_TRUE(occupancy_meets(&o, busy50, &why));
  EXPECT_TRUE(occupancy_meets(&o, held1, &why));
  UnitOccupancy full{uint64_t{3} << 29, 0.88, 3, "", "", ""};
  EXPECT_FALSE(occupancy_meets(&full, free40, &why));
  EXPECT_EQ(why, "free memory 1.5 GiB is less than 40 GiB");
  EXPECT_FALSE(occupancy_meets(&full, busy50, &why));
  EXPECT_EQ(why, "utilization 88% is more than 50%");
  EXPECT_FALSE(occupancy_meets(&full, held1, &why));
  EXPECT_EQ(why, "3 processes hold it, more than 1 allowed");
  full.holders = 1;
  EXPECT_FALSE(occupancy_meets(&full, crit("{type: holders, max: 0}"), &why));
  EXPECT_EQ(why, "1 process holds it, more than 0 allowed");
  full.utilization_ratio = 0.125;
  EXPECT_FALSE(occupancy_meets(&full, crit("{type: utilization, max: 0.1}"), &why));
  EXPECT_EQ(why, "utilization 12.5% is more than 10%");
  // Unknown never passes, whatever the limit; the reason says why it is unknown.
  UnitOccupancy unknown;
  unknown.free_memory_unknown = "nvml is down";
  unknown.holders_unknown = "/proc could not be listed: EACCES";
  EXPECT_FALSE(occupancy_meets(&unknown, crit("{type: free_memory_gb, min: 0}"), &why));
  EXPECT_EQ(why, "free memory unknown: nvml is down");
  EXPECT_FALSE(occupancy_meets(&unknown, crit("{type: utilization, max: 1}"), &why));
  EXPECT_EQ(why, "utilization unknown: not read");
  EXPECT_FALSE(occupancy_meets(&unknown, crit("{type: holders, max: 65536}"), &why));
  EXPECT_EQ(why, "holders unknown: /proc could not be listed: EACCES");
  // Nothing read for the unit (no entry) and device_meets without occupancy: unknown too.
  EXPECT_FALSE(occupancy_meets(nullptr, held1, &why));
  EXPECT_EQ(why, "holders unknown: not read");
  Device d;
  EXPECT_FALSE(device_meets(d, busy50, &why));
  EXPECT_EQ(why, "utilization unknown: not read");
  // Other criteria are not occupancy_meets' to judge.
  EXPECT_TRUE(occupancy_meets(nullptr, crit("{type: memory_gb, min: 4000}"), &why));
}

TEST(OccupancySelect, EachRejectedDeviceHasItsReason) {
  auto o = all_free();
  o[kBuses[1]].free_memory_bytes = uint64_t{10} << 30;
  o[kBuses[2]].utilization_ratio = 0.88;
  o[kBuses[3]].holders = 2;
  o[kBuses[4]].utilization_ratio.reset();
  o[kBuses[4]].utilization_unknown = "sysfs gave no utilization for this device";
  o.erase(kBuses[5]);  // nothing read at all
  auto s = pick(rule("{type: free_memory_gb, min: 64}") +
                    "      - {type: utilization, max: 50%}\n      - {type: holders, max: 1}\n",
                o);
  EXPECT_EQ(chosen(s), (std::vector<std::string>{kBuses[0], kBuses[6], kBuses[7]}));
  ASSERT_EQ(s.rejected.size(), 5u);
  EXPECT_EQ(s.rejected[0].unit, kBuses[1]);
  EXPECT_EQ(s.rejected[0].vendor, "amd");
  EXPECT_EQ(s.rejected[0].priority.value_or(-1), 1);
  EXPECT_EQ(s.rejected[0].reason, "free memory 10 GiB is less than 64 GiB");
  EXPECT_EQ(s.rejected[1].reason, "utilization 88% is more than 50%");
  EXPECT_EQ(s.rejected[2].reason, "2 processes hold it, more than 1 allowed");
  EXPECT_EQ(s.rejected[3].reason, "utilization unknown: sysfs gave no utilization for this device");
  EXPECT_EQ(s.rejected[4].reason, "free memory unknown: not read");
  EXPECT_TRUE(has_reason(s,
                         "policy priority 1 rejected amd 2 (0000:46:00.0): utilization 88% is "
                         "more than 50%"))
      << s.reasons.size();
  EXPECT_TRUE(has_reason(s, "policy priority 1 matched 3 amd devices"));
  auto j = selection_to_json(s);
  ASSERT_TRUE(j.contains("rejected"));
  ASSERT_EQ(j["rejected"].size(), 5u);
  EXPECT_EQ(j["rejected"][2]["device"], kBuses[3]);
  EXPECT_EQ(j["rejected"][2]["vendor"], "amd");
  EXPECT_EQ(j["rejected"][2]["policy_priority"], 1);
  EXPECT_EQ(j["rejected"][2]["reason"], "2 processes hold it, more than 1 allowed");
}

TEST(OccupancySelect, AFallThroughRuleAndTheCpuKeepTheRejections) {
  auto o = all_free();
  for (auto& [bus, u] : o) u.holders = 1;
  // Priority 1 wants idle devices and gets none; priority 2 takes the held ones.
  auto s = pick(rule("{type: holders, max: 0}") + "  - priority: 2\n", o);
  EXPECT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.priority.value_or(-1), 2);
  ASSERT_EQ(s.rejected.size(), 8u);
  EXPECT_EQ(s.rejected[7].label, "amd 7 (0000:e5:00.0)");
  EXPECT_TRUE(has_reason(s,
                         "policy priority 1, amd: no device qualifies (1 process holds it, "
                         "more than 0 allowed)"));
  // Nothing known: the CPU, with every device's reason.
  auto cpu = pick(rule("{type: utilization, max: 0.5}"), {});
  EXPECT_EQ(cpu.vendor, "cpu");
  ASSERT_EQ(cpu.rejected.size(), 8u);
  EXPECT_EQ(cpu.rejected[0].reason, "utilization unknown: not read");
  EXPECT_EQ(selection_to_json(cpu)["rejected"].size(), 8u);
  // Without occupancy criteria the document has no "rejected".
  EXPECT_FALSE(selection_to_json(pick("", {})).contains("rejected"));
}

TEST(OccupancySelect, AListedDeviceTurnedDownIsAnErrorWithTheReason) {
  auto o = all_free();
  o[kBuses[0]].utilization_ratio = 0.9;
  SelectInputs in;
  in.occupancy = o;
  auto s = select_devices(test::fixture_inventory("mi300x-8x"),
                          config(rule("{type: utilization, max: 0.5}") + "devices: [0]\n"), in);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::host);
  EXPECT_NE(s.error().message.find("listed device 0 is not an eligible amd device (utilization "
                                   "90% is more than 50%)"),
            std::string::npos)
      << s.error().message;
}

namespace {

DeviceSample sample(const std::string& bus, std::optional<double> used, std::optional<double> total,
                    std::optional<double> busy) {
  DeviceSample d;
  d.vendor = "amd";
  d.pci_bus_id = bus;
  d.memory_used_bytes = used;
  d.memory_total_bytes = total;
  d.utilization_ratio = busy;
  return d;
}

ps::ProcessInfo holder(int pid, std::vector<std::string> devices, std::optional<char> state = 'S',
                       std::vector<std::string> partitions = {}) {
  ps::ProcessInfo p;
  p.pid = pid;
  p.command = "python3";
  p.devices = std::move(devices);
  p.partitions = std::move(partitions);
  p.state = state;
  return p;
}

}  // namespace

TEST(OccupancyRead, OneSampleAndOneScanGiveEachDevice) {
  const auto& inv = test::fixture_inventory("mi300x-8x");
  MetricsSnapshot snap;
  snap.backends.push_back({"amd", "sysfs", true, {}, std::nullopt, std::nullopt});
  snap.devices.push_back(sample(kBuses[0], 16.0 * (1ull << 30), 192.0 * (1ull << 30), 0.25));
  snap.devices.push_back(sample(kBuses[1], std::nullopt, 192.0 * (1ull << 30), std::nullopt));
  snap.devices.back().warnings.push_back("mem_info_vram_used: unreadable");
  // Used above the total (counters read at different moments): nothing free, not a wrap.
  snap.devices.push_back(sample(kBuses[2], 200.0 * (1ull << 30), 192.0 * (1ull << 30), 1.0));
  ps::ProcessScan scan;
  scan.processes.push_back(holder(10, {kBuses[0]}));
  scan.processes.push_back(holder(11, {kBuses[0], kBuses[2]}));
  scan.processes.push_back(holder(12, {kBuses[0]}, 'Z'));  // a zombie holds nothing
  scan.processes.push_back(holder(13, {kBuses[2]}, 'X'));
  scan.processes.push_back(holder(14, {kBuses[2]}, std::nullopt));  // listed by a library only
  scan.processes.push_back(holder(99, {kBuses[3]}));                // this process
  auto o = occupancy_of(inv, snap, scan, {}, std::nullopt, 99);
  ASSERT_EQ(o.size(), 8u);
  EXPECT_EQ(o[kBuses[0]].free_memory_bytes.value_or(0), uint64_t{176} << 30);
  EXPECT_DOUBLE_EQ(o[kBuses[0]].utilization_ratio.value_or(-1), 0.25);
  EXPECT_EQ(o[kBuses[0]].holders.value_or(-1), 2);
  EXPECT_FALSE(o[kBuses[1]].free_memory_bytes);
  EXPECT_EQ(o[kBuses[1]].free_memory_unknown,
            "sysfs gave no used memory for this device (sampling warned: mem_info_vram_used: "
            "unreadable)");
  EXPECT_EQ(o[kBuses[1]].utilization_unknown,
            "sysfs gave no utilization for this device (sampling warned: mem_info_vram_used: "
            "unreadable)");
  EXPECT_EQ(o[kBuses[1]].holders.value_or(-1), 0);
  EXPECT_EQ(o[kBuses[2]].free_memory_bytes.value_or(1), 0u);
  EXPECT_EQ(o[kBuses[2]].holders.value_or(-1), 2);  // 11 and the library's 14
  EXPECT_EQ(o[kBuses[3]].holders.value_or(-1), 0);
  EXPECT_EQ(o[kBuses[3]].free_memory_unknown, "no metrics sample of this device");
  // A backend that is down names itself and its error.
  snap.backends[0].up = false;
  snap.backends[0].error = "no answer within 1000 ms; call abandoned";
  auto down = occupancy_of(inv, snap, scan, {}, std::nullopt);
  EXPECT_EQ(down[kBuses[0]].utilization_unknown,
            "the amd metrics source (sysfs) is down: no answer within 1000 ms; call abandoned");
}

TEST(OccupancyRead, HoldersAreUnknownWhereProcCannotBeReadWhole) {
  const auto& inv = test::fixture_inventory("mi300x-8x");
  MetricsSnapshot snap;
  ps::ProcessScan scan;
  scan.processes.push_back(holder(10, {kBuses[0]}));
  scan.hidden = 3;
  auto o = occupancy_of(inv, snap, scan, {}, std::nullopt);
  EXPECT_FALSE(o[kBuses[0]].holders);
  EXPECT_EQ(o[kBuses[0]].holders_unknown,
            "3 processes' open files could not be read (other users'; root can read them)");
  // Where the vendor library listed the device's processes, it answers for every user.
  auto listed = occupancy_of(inv, snap, scan, {kBuses[0]}, std::nullopt);
  EXPECT_EQ(listed[kBuses[0]].holders.value_or(-1), 1);
  EXPECT_FALSE(listed[kBuses[1]].holders);
  scan.hidden = 0;
  auto ns = occupancy_of(inv, snap, scan, {}, std::string("in a PID namespace"));
  EXPECT_EQ(ns[kBuses[0]].holders_unknown, "in a PID namespace");
  scan.unreadable = "permission denied";
  auto unlisted = occupancy_of(inv, snap, scan, {}, std::nullopt);
  EXPECT_EQ(unlisted[kBuses[0]].holders_unknown, "/proc could not be listed: permission denied");
}

TEST(OccupancyRead, APartitionCountsItsOwnHoldersAndTheDevicesUnplaced) {
  const auto& inv = test::fixture_inventory("mi300x-8x-cpx");
  const auto* d = test::find_device(inv, "0000:05:00.0");
  ASSERT_TRUE(d && d->partitions.size() >= 2);
  auto p0 = "0000:05:00.0/" + std::to_string(d->partitions[0].index);
  auto p1 = "0000:05:00.0/" + std::to_string(d->partitions[1].index);
  ps::ProcessScan scan;
  scan.processes.push_back(holder(10, {"0000:05:00.0"}, 'S', {p0}));  // on partition 0
  scan.processes.push_back(holder(11, {"0000:05:00.0"}));             // somewhere on the device
  auto o = occupancy_of(inv, MetricsSnapshot{}, scan, {}, std::nullopt);
  EXPECT_EQ(o[p0].holders.value_or(-1), 2);
  EXPECT_EQ(o[p1].holders.value_or(-1), 1);
  EXPECT_FALSE(o[p0].free_memory_bytes);
  EXPECT_EQ(o[p0].free_memory_unknown, "sampled per device, not per partition");
  EXPECT_EQ(o[p0].utilization_unknown, "sampled per device, not per partition");
}

TEST(OccupancyRead, TheScanReadsEachHoldersStateAndSaysWhenProcIsUnreadable) {
  test::TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  const auto& inv = test::fixture_inventory("mi300x-8x");
  auto host = HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)});
  std::filesystem::remove_all(root + "/proc");  // (the fixture's holds only sys/ and driver/)
  auto none = ps::scan_processes(host, inv);
  ASSERT_TRUE(none.unreadable);
  EXPECT_NE(none.unreadable->find("/proc"), std::string::npos) << *none.unreadable;
  const Device* gpu = test::find_device(inv, kBuses[0]);
  ASSERT_TRUE(gpu && gpu->render_node);
  test::write_file(root + "/proc/100/status", "Name:\ttrain\nState:\tD (disk sleep)\nUid:\t0\n");
  test::write_file(root + "/proc/100/fdinfo/3", "pos:\t0\n");
  test::make_symlink(*gpu->render_node, root + "/proc/100/fd/3");
  test::write_file(root + "/proc/101/status", "Name:\tgone\nState:\tZ (zombie)\n");
  test::write_file(root + "/proc/101/fdinfo/3", "pos:\t0\n");
  test::make_symlink(*gpu->render_node, root + "/proc/101/fd/3");
  auto scan = ps::scan_processes(host, inv);
  EXPECT_FALSE(scan.unreadable);
  ASSERT_EQ(scan.processes.size(), 2u);
  EXPECT_EQ(scan.processes[0].state.value_or('?'), 'D');
  EXPECT_EQ(scan.processes[1].state.value_or('?'), 'Z');
  auto o = occupancy_of(inv, MetricsSnapshot{}, scan, {}, std::nullopt);
  EXPECT_EQ(o[kBuses[0]].holders.value_or(-1), 1);  // the zombie is not counted
}

TEST(OccupancyRead, EveryProcessIsSeenOnlyFromTheInitialNamespaceWithoutHidepid) {
  test::TempDir tmp;
  auto root = tmp / "h";
  auto host = [&] { return HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)}); };
  EXPECT_NE(ps::why_not_every_process(host(), 1000)->find("/proc/self/status"), std::string::npos);
  test::write_file(root + "/proc/self/status", "Name:\tanygpu\nState:\tR (running)\n");
  EXPECT_EQ(*ps::why_not_every_process(host(), 0),
            "cannot tell whether /proc shows every process (/proc/self/status has no NSpid "
            "line: a kernel before 4.1)");
  test::write_file(root + "/proc/self/status", "Name:\tanygpu\nNSpid:\t4242\t17\n");
  EXPECT_NE(ps::why_not_every_process(host(), 0)->find("PID namespace of its own"),
            std::string::npos);
  test::write_file(root + "/proc/self/status", "Name:\tanygpu\nNSpid:\t4242\n");
  EXPECT_FALSE(ps::why_not_every_process(host(), 0));
  test::write_file(root + "/proc/self/mountinfo",
                   "22 1 0:21 / /proc rw,nosuid - proc proc rw,hidepid=invisible\n");
  EXPECT_FALSE(ps::why_not_every_process(host(), 0));  // root sees through hidepid
  EXPECT_NE(ps::why_not_every_process(host(), 1000)->find("hidepid=invisible"), std::string::npos);
  test::write_file(root + "/proc/self/mountinfo",
                   "22 1 0:21 / /proc rw,nosuid - proc proc rw,hidepid=0\n");
  EXPECT_FALSE(ps::why_not_every_process(host(), 1000));
  EXPECT_TRUE(ps::holder_ended(holder(1, {}, 'Z')));
  EXPECT_TRUE(ps::holder_ended(holder(1, {}, 'X')));
  EXPECT_FALSE(ps::holder_ended(holder(1, {}, 'D')));
  EXPECT_FALSE(ps::holder_ended(holder(1, {}, std::nullopt)));
}

}  // namespace anygpu
