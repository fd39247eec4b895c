// NVML health through the worker: the mock NVML with health entry points
// (tests/mocklibs/nvml_health.cc) installed in a copy of the 8×H100 fixture, loaded by the
// worker exactly as in production. ECC, retired pages, row remapping and clocks-event reasons
// become findings with the actions of data/health.yaml; the running-process list feeds `ps`;
// a mock that crashes on one GPU costs only the facts it had not sent. Also the worker reply's
// parser (round trip, malformed input) and the findings from facts alone.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <set>

#include "health/checks.h"
#include "health/health.h"
#include "health/health_client.h"
#include "health/health_protocol.h"
#include "health_test_support.h"
#include "probe/probe.h"
#include "ps/processes.h"
#include "test_support.h"
#include "vendorlib/nvml/health_abi.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;
using health::DeviceLibraryFacts;

constexpr const char* kNvmlPath = "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";

const std::string& action_of(std::string_view code) {
  return health::builtin_health_rules().library.at(std::string(code)).action_for("nvml");
}

struct NvmlHealthHost : test::MockLibraryHost {
  NvmlHealthHost()
      : MockLibraryHost("h100-8x", "mock_nvml_health.so", kNvmlPath, "MOCK_NVML_HEALTH_FILE") {}
};

// GPU index -> bus id in the h100-8x fixture.
constexpr const char* kBus[] = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                                "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"};

const health::DeviceHealth& device(const health::HealthReport& r, int gpu) {
  return test::device_at(r, kBus[gpu]);
}
const Finding* find(const std::vector<Finding>& fs, std::string_view code) {
  return test::find_code(fs, code);
}

TEST(HealthNvml, FindingsFromTheMockThroughTheWorker) {
  NvmlHealthHost h;
  test::write_file(h.answers,
                   "0 ecc-volatile 5 2\n0 ecc-aggregate 40 3\n"
                   "1 ecc-volatile 7 0\n1 ecc-aggregate 7 0\n"
                   "2 retired 3 1 1\n"
                   "3 remap 0 1 0 1\n"
                   "4 remap 2 0 1 0\n"
                   "5 clocks-event 64\n"   // HW thermal slowdown
                   "6 clocks-event 136\n"  // HW power brake + HW slowdown
                   "7 clocks-event 5\n"    // idle + SW power cap: normal
                   "7 unknown-error\n");
  auto host = h.host();
  auto inv = probe(host);
  auto lib = worker::read_library_health(host, inv);
  EXPECT_TRUE(lib.warnings.empty()) << lib.warnings.front();
  ASSERT_EQ(lib.devices.size(), 8u);
  health::HealthOptions o;
  o.library = &lib;
  auto r = health::evaluate_health(host, inv, o);
  ASSERT_TRUE(r) << r.error().message;

  auto* ue = find(device(*r, 0).findings, "ecc.uncorrectable");
  ASSERT_TRUE(ue);
  EXPECT_EQ(ue->severity, Severity::error);
  EXPECT_EQ(ue->action, action_of("ecc.uncorrectable"));
  EXPECT_NE(ue->evidence.find("volatile corrected 5, uncorrected 2"), std::string::npos)
      << ue->evidence;
  EXPECT_NE(ue->evidence.find("aggregate corrected 40, uncorrected 3"), std::string::npos);
  EXPECT_EQ(device(*r, 0).health(), health::Health::critical);

  auto* ce = find(device(*r, 1).findings, "ecc.correctable");
  ASSERT_TRUE(ce);
  EXPECT_EQ(ce->severity, Severity::warning);
  EXPECT_EQ(ce->action, action_of("ecc.correctable"));
  EXPECT_FALSE(find(device(*r, 1).findings, "ecc.uncorrectable"));

  auto* rp = find(device(*r, 2).findings, "memory.retired-pages");
  ASSERT_TRUE(rp);
  EXPECT_EQ(rp->severity, Severity::warning);
  EXPECT_NE(rp->message.find("4 page(s) retired"), std::string::npos) << rp->message;
  EXPECT_NE(rp->message.find("waits for a reset"), std::string::npos);
  EXPECT_EQ(rp->action, action_of("memory.retired-pages"));

  auto* rf = find(device(*r, 3).findings, "memory.row-remap-failed");
  ASSERT_TRUE(rf);
  EXPECT_EQ(rf->severity, Severity::error);
  EXPECT_EQ(rf->action, action_of("memory.row-remap-failed"));
  EXPECT_TRUE(find(device(*r, 4).findings, "memory.row-remap-pending"));
  EXPECT_FALSE(find(device(*r, 4).findings, "memory.row-remap-failed"));

  auto* th = find(device(*r, 5).findings, "throttle.thermal");
  ASSERT_TRUE(th);
  EXPECT_NE(th->evidence.find("0x40"), std::string::npos);
  EXPECT_EQ(th->action, action_of("throttle.thermal"));
  auto* pw = find(device(*r, 6).findings, "throttle.power");
  ASSERT_TRUE(pw);
  EXPECT_EQ(pw->action, action_of("throttle.power"));
  EXPECT_FALSE(find(device(*r, 6).findings, "throttle.hw-slowdown"));  // explained by the brake
  EXPECT_TRUE(device(*r, 7).findings.empty());  // idle and power cap are normal operation
  // A failed call is a warning naming the device, never a finding.
  EXPECT_TRUE(test::warns(*r, kBus[7], "retired pages"));
}

TEST(HealthNvml, ACrashingLibraryCostsOnlyTheFactsNotSent) {
  NvmlHealthHost h;
  test::write_file(h.answers, "0 ecc-volatile 0 1\n5 crash\n6 ecc-volatile 0 9\n");
  test::write_file(h.root + "/sys/bus/pci/devices/0000:ba:00.0/current_link_width", "8\n");
  auto host = h.host();
  auto inv = probe(host);
  auto lib = worker::read_library_health(host, inv);
  ASSERT_EQ(lib.warnings.size(), 1u);
  EXPECT_NE(lib.warnings[0].find("SIGSEGV"), std::string::npos) << lib.warnings[0];
  EXPECT_NE(lib.warnings[0].find("5 device(s) read"), std::string::npos) << lib.warnings[0];
  EXPECT_EQ(lib.devices.size(), 5u);  // GPUs 0-4, sent before the crash on GPU 5
  health::HealthOptions o;
  o.library = &lib;
  auto r = health::evaluate_health(host, inv, o);
  ASSERT_TRUE(r);
  EXPECT_TRUE(find(device(*r, 0).findings, "ecc.uncorrectable"));
  EXPECT_FALSE(find(device(*r, 6).findings, "ecc.uncorrectable"));  // never read
  EXPECT_TRUE(find(device(*r, 6).findings, "pcie.link.degraded"));  // sysfs facts remain
  // Each device says whether NVML answered for it, and why not.
  auto nvml = [&](int gpu) -> const health::SourceReading& {
    for (const auto& s : device(*r, gpu).sources)
      if (s.source == "nvml") return s;
    ADD_FAILURE() << "no nvml source on GPU " << gpu;
    static health::SourceReading none;
    return none;
  };
  EXPECT_TRUE(nvml(0).read);
  EXPECT_FALSE(nvml(0).essential);  // the kernel log is NVIDIA's fault channel
  EXPECT_FALSE(nvml(6).read);
  EXPECT_EQ(nvml(6).reason, "crashed");
  EXPECT_NE(nvml(6).detail.find("SIGSEGV"), std::string::npos) << nvml(6).detail;
  bool said = false;
  for (const auto& w : r->warnings) said |= w.find("SIGSEGV") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(HealthNvml, NoLibrariesNoWorker) {
  NvmlHealthHost h;
  HostOptions o;
  o.root = h.root;
  o.load_libraries = false;
  HostRoot host(o);
  auto inv = probe(host);
  auto lib = worker::read_library_health(host, inv);
  EXPECT_TRUE(lib.devices.empty());
  EXPECT_TRUE(lib.warnings.empty());
  ASSERT_EQ(lib.vendors.count("nvidia"), 1u);
  EXPECT_EQ(lib.vendors["nvidia"].api, "nvml");
  EXPECT_EQ(lib.vendors["nvidia"].reason, "disabled");
  // Without NVML, nothing found with the kernel log read is still ok for NVIDIA; unread, it
  // is unknown.
  health::HealthOptions ho;
  ho.library = &lib;
  auto r = health::evaluate_health(host, inv, ho);
  ASSERT_TRUE(r);
  EXPECT_EQ(device(*r, 0).health(), health::Health::unknown);
  test::write_file(h.root + "/dev/kmsg", "");
  r = health::evaluate_health(host, inv, ho);
  ASSERT_TRUE(r);
  EXPECT_EQ(device(*r, 0).health(), health::Health::ok);
}

TEST(HealthNvml, ALibraryNotOnTheHostIsAbsent) {
  NvmlHealthHost h;
  std::filesystem::remove(h.root + "/" + kNvmlPath);
  auto host = h.host();
  auto inv = probe(host);
  auto lib = worker::read_library_health(host, inv);
  EXPECT_EQ(lib.vendors["nvidia"].reason, "absent");
  EXPECT_NE(lib.vendors["nvidia"].detail.find("libnvidia-ml.so.1"), std::string::npos)
      << lib.vendors["nvidia"].detail;
}

TEST(HealthNvml, RunningProcessesFeedPs) {
  NvmlHealthHost h;
  // NVML's samples: 4242 kept GPU 5's SMs 60 % then 80 % busy (a sample older than the recent
  // window does not count); 77 has no sample (idle: 0); GPU 6 cannot say.
  test::write_file(h.answers,
                   "5 process 4242 1073741824\n5 process 77 -\n6 process 4242 1024\n"
                   "5 util 4242 60 1000\n5 util 4242 80 2000\n5 util 4242 100 60000000\n"
                   "6 util-unsupported\n");
  // 4242 is visible in /proc with its node open; 77 is not (a container's process).
  test::write_file(h.root + "/proc/4242/comm", "python3\n");
  test::write_file(h.root + "/proc/4242/status", "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
  test::write_file(h.root + "/proc/4242/fdinfo/3", "pos:\t0\nflags:\t02\n");
  test::make_symlink("/dev/nvidia5", h.root + "/proc/4242/fd/3");
  test::write_file(h.root + "/proc/77/comm", "trainer\n");
  auto host = h.host();
  auto inv = probe(host);
  auto scan = ps::scan_processes(host, inv);
  auto lib = worker::read_library_health(host, inv);
  ps::add_library_processes(host, lib, scan);
  ASSERT_EQ(scan.processes.size(), 2u);
  EXPECT_EQ(scan.processes[0].pid, 77);
  EXPECT_EQ(scan.processes[0].command, "trainer");
  EXPECT_EQ(scan.processes[0].devices, std::vector<std::string>{kBus[5]});
  EXPECT_FALSE(scan.processes[0].memory_bytes);  // NVML_VALUE_NOT_AVAILABLE: absent
  const auto& p = scan.processes[1];
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.devices, (std::vector<std::string>{kBus[5], kBus[6]}));
  EXPECT_EQ(p.memory_bytes.value_or(0), 1073741824ull + 1024);  // summed over its GPUs
  EXPECT_EQ(p.busy_ratio_by_device, (std::map<std::string, double>{{kBus[5], 0.7}}));
  EXPECT_EQ(scan.processes[0].busy_ratio_by_device,
            (std::map<std::string, double>{{kBus[5], 0.0}}));
}

// Iluvatar's ixml exports NVML's names and types: the same health and process calls reach it
// through the worker, named as ixml. The h100-8x copy becomes an Iluvatar host (PCI vendor
// 0x1e3e, driver iluvatar) with the mock where the registry looks for libixml.so.
TEST(HealthNvml, IxmlSpeaksNvml) {
  NvmlHealthHost h;
  fs::remove(h.root + "/" + kNvmlPath);
  fs::create_directories(h.root + "/sys/bus/pci/drivers/iluvatar");
  for (const char* bus : kBus) {
    auto dev = fs::path(h.root) / "sys/bus/pci/devices" / bus;
    test::write_file((dev / "vendor").string(), "0x1e3e\n");
    auto target = fs::read_symlink(dev / "driver").parent_path() / "iluvatar";
    fs::remove(dev / "driver");
    fs::create_symlink(target, dev / "driver");
  }
  fs::create_directories(h.root + "/usr/local/corex/lib64");
  fs::copy_file(test::mock_library("mock_nvml_health.so"),
                h.root + "/usr/local/corex/lib64/libixml.so");
  test::write_file(h.answers, "0 ecc-volatile 5 2\n3 process 4242 1048576\n");
  auto host = h.host();
  auto inv = probe(host);
  ASSERT_EQ(inv.of_vendor("iluvatar").size(), 8u);
  EXPECT_TRUE(inv.of_vendor("nvidia").empty());
  auto lib = worker::read_library_health(host, inv);
  EXPECT_TRUE(lib.warnings.empty()) << lib.warnings.front();
  ASSERT_EQ(lib.devices.size(), 8u);
  EXPECT_EQ(lib.devices.at(kBus[0]).api, "ixml");
  health::HealthOptions o;
  o.library = &lib;
  auto r = health::evaluate_health(host, inv, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(device(*r, 0).vendor, "iluvatar");
  auto* ue = find(device(*r, 0).findings, "ecc.uncorrectable");
  ASSERT_TRUE(ue);
  // NVML's facts, not NVIDIA's tools: the action that names none.
  EXPECT_EQ(ue->action, health::builtin_health_rules().library.at("ecc.uncorrectable").action);
  EXPECT_EQ(ue->action.find("nvidia-smi"), std::string::npos) << ue->action;
  ps::ProcessScan scan;
  ps::add_library_processes(host, lib, scan);
  ASSERT_EQ(scan.processes.size(), 1u);
  EXPECT_EQ(scan.processes[0].pid, 4242);
  EXPECT_EQ(scan.processes[0].devices, std::vector<std::string>{kBus[3]});
  EXPECT_EQ(scan.processes[0].memory_bytes.value_or(0), 1048576u);
}

TEST(HealthNvmlFacts, LifetimeOnlyUncorrectableIsInformation) {
  DeviceLibraryFacts f;
  f.ecc_volatile = health::EccCounts{0, 0};
  f.ecc_aggregate = health::EccCounts{3, 2};
  std::vector<Finding> out;
  health::check_library(f, health::builtin_health_rules(), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].code, "ecc.uncorrectable");
  EXPECT_EQ(out[0].severity, Severity::info);
}

TEST(HealthNvmlFacts, HardwareSlowdownAloneHasItsOwnCode) {
  DeviceLibraryFacts f;
  f.clocks_event_reasons = 0x8;
  std::vector<Finding> out;
  health::check_library(f, health::builtin_health_rules(), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].code, "throttle.hw-slowdown");
  f.clocks_event_reasons = 0x20;  // software thermal slowdown
  out.clear();
  health::check_library(f, health::builtin_health_rules(), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].code, "throttle.thermal");
}

// Every finding a library fact can produce has its row in the table: facts that trigger every
// check, then each finding's code must be a `library` entry (an unknown code would fall back to
// a warning without an action).
TEST(HealthNvmlFacts, TheTableHasEveryLibraryCode) {
  const auto& rules = health::builtin_health_rules();
  std::vector<DeviceLibraryFacts> all(3);
  all[0].ecc_volatile = health::EccCounts{1, 1};
  all[0].remapped_rows = health::RemappedRows{1, 1, true, true};
  all[0].retired_pages = health::RetiredPages{1, 1, true};
  all[0].clocks_event_reasons = nvml::kEventHwThermalSlowdown | nvml::kEventHwPowerBrakeSlowdown;
  all[0].alarm = 3;
  all[0].fault_codes = std::vector<uint32_t>{0x80E01801};
  all[0].memory_health = 2;
  all[0].ras = health::RasErrors{{1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1}};
  all[1].ecc_aggregate = health::EccCounts{0, 1};
  all[1].clocks_event_reasons = nvml::kEventHwSlowdown;
  all[1].memory_health = 3;
  all[2].memory_health = 4;
  std::set<std::string> codes;
  for (const auto& facts : all) {
    std::vector<Finding> out;
    health::check_library(facts, rules, out);
    for (const auto& f : out) {
      // Fault codes take their row from the fault-code table instead.
      if (f.code != "device.fault-code") {
        EXPECT_TRUE(rules.library.count(f.code)) << f.code << " has no data/health.yaml row";
      }
      EXPECT_FALSE(f.action.empty()) << f.code;
      codes.insert(f.code);
    }
  }
  EXPECT_EQ(codes.size(), 17u);  // every check fired: a check that stops firing is caught too
  auto bad = health::parse_health_rules(
      "schema: 1\nxid: []\nunknown_xid: {severity: warning, action: a}\nmessages: []\n"
      "library:\n  - {code: x, severity: bad, action: a}\n",
      "t.yaml");
  EXPECT_FALSE(bad);
}

// An action names the tools of the vendor whose library gave the facts, or none: NVIDIA's
// commands are never the advice for an Ascend or Intel finding. The generic action (what ixml
// and any library without its own gets) names no vendor's tool at all.
TEST(HealthLibraryActions, NameOnlyTheirOwnVendorsTools) {
  const std::map<std::string, std::vector<std::string>> kTools = {
      {"nvml", {"nvidia-smi", "dcgmi"}},
      {"ixml", {"ixsmi"}},
      {"dcmi", {"npu-smi", "ascend-dmi", "hccn_tool"}},
      {"level-zero", {"xpu-smi"}},
  };
  const auto& rules = health::builtin_health_rules();
  size_t by_api = 0;
  for (const auto& [code, rule] : rules.library) {
    for (const auto& [api, tools] : kTools) {
      for (const auto& tool : tools) {
        EXPECT_EQ(rule.action.find(tool), std::string::npos)
            << code << ": the action every library gets names " << tool;
      }
    }
    for (const auto& [api, action] : rule.by_api) {
      ASSERT_TRUE(kTools.count(api)) << code << ": by_api names an unknown library " << api;
      ++by_api;
      for (const auto& [other, tools] : kTools) {
        if (other == api) continue;
        for (const auto& tool : tools) {
          EXPECT_EQ(action.find(tool), std::string::npos)
              << code << ": " << api << "'s action names " << other << "'s " << tool;
        }
      }
    }
  }
  EXPECT_GE(by_api, 4u);  // the table does carry vendor actions: the loop above checked some
  auto bad = health::parse_health_rules(
      "schema: 1\nxid: []\nunknown_xid: {severity: warning, action: a}\nmessages: []\n"
      "library:\n  - {code: x, severity: info, action: a, by_api: [nvml]}\n",
      "t.yaml");
  EXPECT_FALSE(bad);
}

std::string header() {
  return "anygpu-worker 1\nlibrary nvidia nvml loaded\n";
}

TEST(HealthReply, RoundTripsEveryFact) {
  DeviceLibraryFacts f;
  f.api = "nvml";
  f.ecc_volatile = health::EccCounts{3, 1};
  f.ecc_aggregate = health::EccCounts{12, 1};
  f.remapped_rows = health::RemappedRows{2, 1, false, true};
  f.retired_pages = health::RetiredPages{1, 2, true};
  f.clocks_event_reasons = 0x40;
  f.alarm = 2;
  f.fault_codes = std::vector<uint32_t>{0x80E01801, 0x00000007};
  f.memory_health = 3;
  f.ras = health::RasErrors{{0, 0, 0, 0, 0, 12, 0}, {1, 0, 2, 0, 0, 0, 1ull << 40}};
  f.processes = std::vector<health::LibraryProcess>{{4242, 1ull << 30, 37},
                                                    {17, std::nullopt, std::nullopt}};
  f.errors = {"retired pages: Unknown Error (999)"};
  auto text = header() + worker::encode_health_device("0000:18:00.0", f) + "end\n";
  auto r = worker::decode_health_reply(text);
  ASSERT_FALSE(r.error) << *r.error;
  ASSERT_TRUE(r.complete);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(worker::encode_health_device(r.devices[0].first, r.devices[0].second),
            worker::encode_health_device("0000:18:00.0", f));
  EXPECT_EQ(r.devices[0].second.processes->at(1).pid, 17);
  EXPECT_FALSE(r.devices[0].second.processes->at(1).used_bytes);
  EXPECT_EQ(r.devices[0].second.processes->at(0).busy_percent.value_or(0), 37u);
  EXPECT_FALSE(r.devices[0].second.processes->at(1).busy_percent);
  EXPECT_EQ(r.devices[0].second.ras->uncorrectable[6], 1ull << 40);
  EXPECT_EQ(r.devices[0].second.memory_health.value_or(0), 3u);
  EXPECT_EQ(r.api.value_or(""), "nvml");
  EXPECT_FALSE(worker::decode_health_reply("anygpu-worker 1\nend\n").api);  // none loaded
}

TEST(HealthReply, MalformedAndTruncatedReplies) {
  auto block = [](const std::string& body) {
    return header() + "device 0000:18:00.0\n" + body + "device-end\nend\n";
  };
  for (const char* body : {"ecc volatile x 1\n",
                           "ecc sometimes 1 1\n",
                           "remap 1 1 2 0\n",
                           "retired 1\n",
                           "processes\nprocess 0 5 -\n",
                           "process 5 5 -\n",
                           "processes\nprocess 5 5\n",
                           "processes\nprocess 5 5 101\n",
                           "processes\nprocess 5 - busy\n",
                           "bogus\n",
                           "clocks-event -1\n",
                           "retired 1 2 maybe\n",
                           "alarm 4\n",
                           "alarm\n",
                           "memory-health 0\n",
                           "memory-health 5\n",
                           "ras correctable 1 2 3\n",
                           "ras sometimes 0 0 0 0 0 0 0\n",
                           "ras uncorrectable 0 0 0 0 0 0 x\n",
                           "ras correctable 0 0 0 0 0 0 0 0\n",
                           "fault-codes 80E0180\n",
                           "fault-codes 0x80E018\n",
                           "fault-codes 80E01801 zz\n"}) {
    auto r = worker::decode_health_reply(block(body));
    EXPECT_TRUE(r.error) << body;
    EXPECT_EQ(r.error.value_or("").rfind("line ", 0), 0u) << body;
  }
  EXPECT_TRUE(worker::decode_health_reply("anygpu-worker 2\nend\n").error);
  EXPECT_TRUE(worker::decode_health_reply(header() + "ecc volatile 1 1\nend\n").error);
  EXPECT_TRUE(worker::decode_health_reply("anygpu-worker 1\ndevice 0000:18:00.0\n").error);
  // The worker died inside the second device: the first is kept, the reply is incomplete.
  auto cut = worker::decode_health_reply(header() +
                                         "device 0000:18:00.0\nclocks-event 64\ndevice-end\n"
                                         "device 0000:2a:00.0\necc volatile 1");
  EXPECT_FALSE(cut.complete);
  ASSERT_EQ(cut.devices.size(), 1u);
  EXPECT_EQ(cut.devices[0].first, "0000:18:00.0");
  auto init = worker::decode_health_reply(
      "anygpu-worker 1\nlibrary nvidia nvml error nvmlInit%20failed\nend\n");
  EXPECT_FALSE(init.error);
  EXPECT_EQ(init.library_error.value_or(""), "nvmlInit failed");
}

}  // namespace
}  // namespace anygpu
