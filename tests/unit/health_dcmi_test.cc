// DCMI health through the worker: the mock DCMI (tests/mocklibs/dcmi_metrics.cc) installed in a
// copy of the ascend-910b-8x fixture where the registry looks for libdcmi.so, loaded by the
// worker exactly as in production. A chip's alarm level becomes a device.alarm finding, the
// processes DCMI lists feed `ps`, and a library that crashes on one chip costs only the facts
// it had not sent.
#include <gtest/gtest.h>

#include <map>

#include "health/checks.h"
#include "health/health.h"
#include "health/health_client.h"
#include "health_test_support.h"
#include "probe/probe.h"
#include "ps/processes.h"
#include "test_support.h"

namespace anygpu {
namespace {

// One of the dirs data/vendors.yaml lists for Ascend's dcmi library.
constexpr const char* kDcmiPath = "usr/local/Ascend/driver/lib64/driver/libdcmi.so";
// Card -> bus id, as the mock and the fixture place them.
constexpr const char* kBus[] = {"0000:01:00.0", "0000:02:00.0", "0000:41:00.0", "0000:42:00.0",
                                "0000:81:00.0", "0000:82:00.0", "0000:c1:00.0", "0000:c2:00.0"};

struct DcmiHealthHost : test::MockLibraryHost {
  DcmiHealthHost()
      : MockLibraryHost("ascend-910b-8x", "mock_dcmi_metrics.so", kDcmiPath,
                        "MOCK_DCMI_HEALTH_FILE") {}
};

const health::DeviceHealth& device(const health::HealthReport& r, int card) {
  return test::device_at(r, kBus[card]);
}
using test::find_code;

TEST(HealthDcmi, AlarmLevelsBecomeFindingsThroughTheWorker) {
  DcmiHealthHost h;
  test::write_file(h.answers, "2 health 1\n3 health 3\n5 health 7\n");
  auto [lib, report] = test::evaluate_with_library(h);
  EXPECT_TRUE(lib.warnings.empty()) << lib.warnings.front();
  ASSERT_EQ(lib.devices.size(), 8u);
  EXPECT_EQ(lib.devices.at(kBus[0]).api, "dcmi");
  auto* r = &report;
  auto* minor = find_code(device(*r, 2).findings, "device.alarm");
  ASSERT_TRUE(minor);
  EXPECT_EQ(minor->severity, Severity::warning);
  EXPECT_EQ(minor->evidence, "dcmi_get_device_health: 1 (minor)");
  const auto& alarm = health::builtin_health_rules().library.at("device.alarm");
  EXPECT_EQ(minor->action, alarm.action_for("dcmi"));
  EXPECT_NE(minor->action, alarm.action);  // Ascend's own advice, naming npu-smi
  EXPECT_NE(minor->action.find("npu-smi"), std::string::npos);
  auto* critical = find_code(device(*r, 3).findings, "device.alarm");
  ASSERT_TRUE(critical);
  EXPECT_EQ(critical->severity, Severity::error);
  EXPECT_EQ(device(*r, 3).health(), health::Health::critical);
  EXPECT_FALSE(find_code(device(*r, 0).findings, "device.alarm"));  // level 0: healthy
  // A level outside 0-3 is a warning naming the device and the call, never a finding.
  EXPECT_FALSE(find_code(device(*r, 5).findings, "device.alarm"));
  EXPECT_TRUE(test::warns(*r, kBus[5], "level 7"));
}

// HBM ECC through dcmi_get_device_ecc_info: the same ECC and retired-page findings as NVML's,
// with DCMI's call in the evidence; a chip with ECC disabled gives no ECC facts.
TEST(HealthDcmi, HbmEccAndIsolatedPages) {
  DcmiHealthHost h;
  test::write_file(h.answers,
                   "1 ecc 1 4 1 10 2 3 1 1 0\n"
                   "2 ecc 1 7 0 7 0 0 0 0 0\n"
                   "3 ecc 0 9 9 9 9 9 9 9 9\n");
  auto [lib, report] = test::evaluate_with_library(h);
  EXPECT_TRUE(lib.warnings.empty()) << lib.warnings.front();
  auto* r = &report;
  auto* ue = find_code(device(*r, 1).findings, "ecc.uncorrectable");
  ASSERT_TRUE(ue);
  EXPECT_EQ(ue->action.find("nvidia-smi"), std::string::npos) << ue->action;  // Ascend's advice
  EXPECT_EQ(ue->severity, Severity::error);
  EXPECT_EQ(ue->evidence,
            "dcmi_get_device_ecc_info (HBM): volatile corrected 4, uncorrected 1; aggregate "
            "corrected 10, uncorrected 2");
  auto* pages = find_code(device(*r, 1).findings, "memory.retired-pages");
  ASSERT_TRUE(pages);
  EXPECT_EQ(pages->message,
            "4 page(s) retired (3 single-bit, 1 double-bit); a retirement waits for a reset");
  EXPECT_EQ(pages->evidence,
            "dcmi_get_device_ecc_info (HBM) isolated pages: single-bit 3, double-bit 1; next "
            "isolated pages: 1");
  auto* ce = find_code(device(*r, 2).findings, "ecc.correctable");
  ASSERT_TRUE(ce);
  EXPECT_FALSE(find_code(device(*r, 2).findings, "memory.retired-pages"));
  EXPECT_TRUE(device(*r, 3).findings.empty());  // ECC disabled: nothing read
  EXPECT_FALSE(lib.devices.at(kBus[3]).ecc_volatile);
}

// Each fault code takes the severity and action of the level Ascend's device plugin gives it;
// a code the table lacks is a warning that says so; a count beyond the list is the library's
// error, not a finding.
TEST(HealthDcmi, FaultCodesTakeTheirLevelsSeverityAndAction) {
  DcmiHealthHost h;
  std::string many = "5 fault";
  for (int i = 0; i < 130; ++i) many += " 80E01801";
  test::write_file(h.answers,
                   "1 fault 80E01801\n2 fault 8C0E4E00 80E3A201\n3 fault 12345678\n"
                   "4 fault 80E21007\n" +
                       many + "\n");
  auto [lib, report] = test::evaluate_with_library(h);
  EXPECT_TRUE(lib.warnings.empty()) << lib.warnings.front();
  auto* r = &report;
  const auto& rules = health::builtin_health_rules();
  auto* job = find_code(device(*r, 1).findings, "device.fault-code");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->severity, Severity::warning);
  EXPECT_EQ(job->message, "fault code 80E01801 (restart-job)");
  EXPECT_EQ(job->evidence,
            "dcmi_get_device_errorcode_v2: 80E01801; Ascend's device plugin lists it in "
            "RestartBusinessCodes");
  EXPECT_EQ(job->action, rules.for_dcmi_fault(0x80E01801).action);
  EXPECT_EQ(device(*r, 1).health(), health::Health::warning);
  // Two codes, two findings; the worst decides the device.
  std::vector<std::string> levels;
  for (const auto& f : device(*r, 2).findings)
    if (f.code == "device.fault-code") levels.push_back(f.message);
  EXPECT_EQ(levels, (std::vector<std::string>{"fault code 8C0E4E00 (reset-when-idle)",
                                              "fault code 80E3A201 (isolate)"}));
  EXPECT_EQ(device(*r, 2).health(), health::Health::critical);
  auto* unknown = find_code(device(*r, 3).findings, "device.fault-code");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->message, "fault code 12345678 (not in anygpu's fault-code table)");
  EXPECT_EQ(unknown->severity, rules.unknown_dcmi_fault.severity);
  EXPECT_EQ(unknown->action, rules.unknown_dcmi_fault.action);
  auto* harmless = find_code(device(*r, 4).findings, "device.fault-code");
  ASSERT_TRUE(harmless);
  EXPECT_EQ(harmless->severity, Severity::info);
  EXPECT_EQ(device(*r, 4).health(), health::Health::ok);
  EXPECT_FALSE(lib.devices.at(kBus[5]).fault_codes);
  EXPECT_TRUE(test::warns(*r, kBus[5], "count 130"));
  EXPECT_TRUE(lib.devices.at(kBus[0]).fault_codes->empty());  // answered: no faults
}

// The table as data/health.yaml carries it from the device plugin's faultCode.json: 350
// distinct codes, each at one level; a code the source lists at two levels is at the higher.
TEST(HealthDcmi, FaultCodeTableIsTheDevicePluginsLevels) {
  const auto& rules = health::builtin_health_rules();
  EXPECT_EQ(rules.dcmi_fault_codes.size(), 350u);
  std::map<std::string, size_t> per_level;
  for (const auto& [code, level] : rules.dcmi_fault_codes)
    ++per_level[rules.dcmi_fault_levels[level].source];
  EXPECT_EQ(per_level, (std::map<std::string, size_t>{{"NotHandleFaultCodes", 102},
                                                      {"SubHealthFaultCodes", 10},
                                                      {"RestartRequestCodes", 30},
                                                      {"RestartBusinessCodes", 25},
                                                      {"FreeRestartNPUCodes", 17},
                                                      {"RestartNPUCodes", 139},
                                                      {"SeparateNPUCodes", 27}}));
  EXPECT_EQ(rules.for_dcmi_fault(0xA2301001).level, "isolate");
  EXPECT_EQ(rules.for_dcmi_fault(0x80818C00).level, "isolate");
  EXPECT_EQ(rules.for_dcmi_fault(0x81A3880C).level, "sub-health");
  EXPECT_EQ(rules.for_dcmi_fault(0x00000001).level, "unknown");
  for (const auto& l : rules.dcmi_fault_levels) EXPECT_FALSE(l.action.empty()) << l.level;
}

TEST(HealthDcmi, MalformedFaultLevelsNameTheLine) {
  auto parse = [](const std::string& levels) {
    return health::parse_health_rules(
        "schema: 1\nxid: []\nunknown_xid: {severity: warning, action: a}\nmessages: []\n"
        "dcmi_fault_levels:\n" +
            levels,
        "t.yaml");
  };
  EXPECT_TRUE(
      parse("  - {level: a, source: A, severity: info, action: x, codes: [\"80E01801\"]}\n"));
  for (const char* bad : {
           "  - {level: a, source: A, severity: info, action: x, codes: [\"80E0180\"]}\n",
           "  - {level: a, source: A, severity: info, action: x, codes: [\"0x80E018\"]}\n",
           "  - {level: a, source: A, severity: info, action: x, codes: [80E01801]}\n",
           "  - {level: a, source: A, severity: info, action: x, codes: [\"80E01801\"]}\n"
           "  - {level: b, source: B, severity: info, action: x, codes: [\"80e01801\"]}\n",
           "  - {level: a, source: A, severity: info, action: x, codes: []}\n"
           "  - {level: a, source: B, severity: info, action: x, codes: []}\n",
           "  - {level: a, source: A, severity: sometimes, action: x, codes: []}\n",
           "  - {level: a, source: A, severity: info, action: x}\n",
       }) {
    auto r = parse(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("t.yaml:"), std::string::npos) << r.error().message;
  }
}

TEST(HealthDcmi, ProcessListsFeedPs) {
  DcmiHealthHost h;
  test::write_file(h.answers, "4 process 4242 2147483648\n4 process 77 1024\n6 process 4242 512\n");
  test::write_file(h.root + "/proc/4242/comm", "python3\n");
  test::write_file(h.root + "/proc/4242/status", "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
  auto host = h.host();
  auto inv = probe(host);
  auto lib = worker::read_library_health(host, inv);
  ps::ProcessScan scan;
  ps::add_library_processes(host, lib, scan);
  ASSERT_EQ(scan.processes.size(), 2u);
  EXPECT_EQ(scan.processes[0].pid, 77);
  EXPECT_EQ(scan.processes[0].devices, std::vector<std::string>{kBus[4]});
  EXPECT_EQ(scan.processes[0].memory_bytes.value_or(0), 1024u);
  EXPECT_EQ(scan.processes[1].pid, 4242);
  EXPECT_EQ(scan.processes[1].command, "python3");
  EXPECT_EQ(scan.processes[1].devices, (std::vector<std::string>{kBus[4], kBus[6]}));
  EXPECT_EQ(scan.processes[1].memory_bytes.value_or(0), 2147483648ull + 512);
}

TEST(HealthDcmi, ACrashingLibraryCostsOnlyTheChipsNotSent) {
  DcmiHealthHost h;
  test::write_file(h.answers, "1 health 2\n4 crash\n6 health 3\n");
  auto host = h.host();
  auto inv = probe(host);
  auto lib = worker::read_library_health(host, inv);
  ASSERT_EQ(lib.warnings.size(), 1u);
  EXPECT_NE(lib.warnings[0].find("SIGSEGV"), std::string::npos) << lib.warnings[0];
  EXPECT_NE(lib.warnings[0].find("4 device(s) read"), std::string::npos) << lib.warnings[0];
  EXPECT_EQ(lib.devices.size(), 4u);  // cards 0-3, sent before the crash on card 4
  EXPECT_EQ(lib.devices.at(kBus[1]).alarm.value_or(0), 2u);
  EXPECT_FALSE(lib.devices.count(kBus[6]));
}

}  // namespace
}  // namespace anygpu
