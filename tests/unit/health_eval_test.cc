// `anygpu health` on fixture copies carrying real-format evidence: AER counters, a degraded
// link, a fallen-off device, AMD RAS counters and bad pages, hwmon over its threshold and
// kernel-log records (Xid 79/48/94, SXid, amdgpu resets and ring timeouts).
#include <gtest/gtest.h>

#include "health/health.h"
#include "health/render.h"
#include "test_support.h"

namespace anygpu::health {
namespace {

using test::TempDir;
using test::write_file;

std::string dev(const std::string& root, const std::string& bdf, const std::string& file) {
  return root + "/sys/bus/pci/devices/" + bdf + "/" + file;
}

const Finding* find(const DeviceHealth& d, std::string_view code) {
  for (const auto& f : d.findings)
    if (f.code == code) return &f;
  return nullptr;
}

const DeviceHealth& device(const HealthReport& r, std::string_view bus) {
  for (const auto& d : r.devices)
    if (d.pci_bus_id == bus) return d;
  ADD_FAILURE() << "no device " << bus;
  static DeviceHealth none;
  return none;
}

HealthReport run(const std::string& root, HealthOptions opts = {}) {
  HostRoot host(HostOptions{root, false, std::chrono::milliseconds(1000)});
  auto inv = test::probe_root(root);
  auto r = evaluate_health(host, inv, opts);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? std::move(r.value()) : HealthReport{};
}

// A copy of a fixture host with a kernel log (empty: nothing happened) that health can read.
std::string with_kernel_log(TempDir& tmp, const std::string& host, const std::string& log = "") {
  auto root = tmp / host;
  test::copy_tree(test::fixture_host(host), root);
  write_file(root + "/dev/kmsg", log);
  return root;
}

TEST(HealthEval, CleanFixturesWithTheirKernelLogAreHealthy) {
  TempDir tmp;
  for (const char* host : {"h100-8x", "mi300x-8x", "intel-max-arc"}) {
    auto r = run(with_kernel_log(tmp, host));
    ASSERT_FALSE(r.devices.empty()) << host;
    for (const auto& d : r.devices)
      EXPECT_EQ(d.health(), Health::ok) << host << " " << d.pci_bus_id;
    EXPECT_FALSE(r.any_critical());
    ASSERT_EQ(r.sources.size(), 1u);
    EXPECT_TRUE(r.sources[0].read);
    EXPECT_EQ(r.sources[0].detail, "/dev/kmsg");
  }
}

TEST(HealthEval, WithoutAKernelLogNothingFoundIsUnknown) {
  // The fixtures carry no kernel log: Xids and driver resets could not be seen.
  for (const char* host : {"h100-8x", "mi300x-8x", "intel-max-arc"}) {
    auto r = run(test::fixture_host(host));
    ASSERT_EQ(r.sources.size(), 1u);
    EXPECT_FALSE(r.sources[0].read);
    EXPECT_EQ(r.sources[0].reason, "absent");
    for (const auto& d : r.devices) {
      EXPECT_EQ(d.health(), Health::unknown) << host << " " << d.pci_bus_id;
      EXPECT_FALSE(d.covered());
    }
    EXPECT_EQ(r.worst(), Health::unknown);
    EXPECT_EQ(health_to_json(r)["devices"][0]["health"], "unknown");
  }
}

// A partitioned device's findings are its partitions': an Xid names the GPU, and every MIG
// instance on it is listed with the device's health. Devices without partitions list none.
TEST(HealthEval, PartitionsShareTheirDevicesHealth) {
  TempDir tmp;
  auto r = run(with_kernel_log(
      tmp, "h100-8x-mig",
      "3,100,1000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid=4242, GPU has fallen off the bus.\n"));
  const auto& gpu1 = device(r, "0000:2a:00.0");
  EXPECT_EQ(gpu1.health(), Health::critical);
  EXPECT_EQ(gpu1.partitions,
            (std::vector<std::string>{"0000:2a:00.0/0", "0000:2a:00.0/1", "0000:2a:00.0/2"}));
  EXPECT_TRUE(device(r, "0000:5d:00.0").partitions.empty());
  auto j = health_to_json(r);
  EXPECT_EQ(j["devices"][1]["partitions"][2], "0000:2a:00.0/2");
  EXPECT_FALSE(j["devices"][3].contains("partitions"));
  auto text = health_to_text(r);
  EXPECT_NE(text.find("  partitions (critical with their device): 0000:2a:00.0/0 0000:2a:00.0/1 "
                      "0000:2a:00.0/2\n"),
            std::string::npos)
      << text;
}

// An SR-IOV virtual function is a device of its own whose silicon and link are its physical
// function's: a fatal AER on the PF (intel-flex-sriov: 0000:4d:00.0 with four VFs) is each
// VF's finding too, said to be the PF's; the other card, without VFs, keeps its own health.
TEST(HealthEval, AVirtualFunctionSharesItsPhysicalFunctionsFindings) {
  TempDir tmp;
  auto root = with_kernel_log(tmp, "intel-flex-sriov");
  auto clean = run(root);
  EXPECT_FALSE(find(device(clean, "0000:4d:00.1"), "pcie.aer.fatal"));
  EXPECT_NE(device(clean, "0000:4d:00.1").health(), Health::critical);

  const std::string fatal = "CmpltTO 1\nTOTAL_ERR_FATAL 1\n";
  write_file(dev(root, "0000:4d:00.0", "aer_dev_fatal"), fatal);
  auto r = run(root);
  ASSERT_TRUE(find(device(r, "0000:4d:00.0"), "pcie.aer.fatal"));
  for (const char* vf : {"0000:4d:00.1", "0000:4d:00.2", "0000:4d:00.3", "0000:4d:00.4"}) {
    const auto& d = device(r, vf);
    const auto* f = find(d, "pcie.aer.fatal");
    ASSERT_TRUE(f) << vf;
    EXPECT_EQ(f->message.rfind("on its physical function 0000:4d:00.0: ", 0), 0u) << f->message;
    EXPECT_NE(f->evidence.find("CmpltTO 1"), std::string::npos);
    EXPECT_EQ(d.health(), Health::critical) << vf;
  }
  EXPECT_FALSE(find(device(r, "0000:cb:00.0"), "pcie.aer.fatal"));
  EXPECT_NE(device(r, "0000:cb:00.0").health(), Health::critical);
  // A finding of a VF stays its own: neither the PF nor a sibling VF inherits it.
  write_file(dev(root, "0000:4d:00.0", "aer_dev_fatal"), "TOTAL_ERR_FATAL 0\n");
  write_file(dev(root, "0000:4d:00.2", "aer_dev_fatal"), fatal);
  auto vf_only = run(root);
  EXPECT_TRUE(find(device(vf_only, "0000:4d:00.2"), "pcie.aer.fatal"));
  EXPECT_FALSE(find(device(vf_only, "0000:4d:00.0"), "pcie.aer.fatal"));
  EXPECT_FALSE(find(device(vf_only, "0000:4d:00.1"), "pcie.aer.fatal"));
}

TEST(HealthEval, AVirtualFunctionAskedForAloneStillGetsItsPhysicalFunctionsFindings) {
  TempDir tmp;
  auto root = with_kernel_log(tmp, "intel-flex-sriov");
  write_file(dev(root, "0000:4d:00.0", "aer_dev_fatal"), "CmpltTO 1\nTOTAL_ERR_FATAL 1\n");
  HealthOptions one;
  one.devices = {"0000:4d:00.2"};
  auto r = run(root, one);
  ASSERT_EQ(r.devices.size(), 1u);  // the PF is examined, not reported
  const auto& vf = r.devices.front();
  EXPECT_EQ(vf.pci_bus_id, "0000:4d:00.2");
  const auto* f = find(vf, "pcie.aer.fatal");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->message.rfind("on its physical function 0000:4d:00.0: ", 0), 0u) << f->message;
  EXPECT_EQ(vf.health(), Health::critical);
  // Asked for with its PF, the PF is reported once and the VF's copy is not doubled.
  one.devices = {"0000:4d:00.2", "0000:4d:00.0"};
  auto both = run(root, one);
  ASSERT_EQ(both.devices.size(), 2u);
  size_t copies = 0;
  for (const auto& x : device(both, "0000:4d:00.2").findings) copies += x.code == "pcie.aer.fatal";
  EXPECT_EQ(copies, 1u);
}

TEST(HealthEval, AscendNeedsDcmiNotTheKernelLog) {
  TempDir tmp;
  auto r = run(with_kernel_log(tmp, "ascend-910b-8x"));
  ASSERT_FALSE(r.devices.empty());
  for (const auto& d : r.devices) {
    EXPECT_EQ(d.health(), Health::unknown) << d.pci_bus_id;
    const SourceReading* dcmi = nullptr;
    for (const auto& s : d.sources)
      if (s.source == "dcmi") dcmi = &s;
    ASSERT_TRUE(dcmi);
    EXPECT_TRUE(dcmi->essential);
    EXPECT_EQ(dcmi->reason, "not-asked");
  }
  // DCMI read, and no kernel log: Ascend's fault channel is DCMI's.
  LibraryHealth lib;
  for (const auto& d : r.devices) lib.devices[d.pci_bus_id].api = "dcmi";
  HealthOptions o;
  o.library = &lib;
  auto with_dcmi = run(test::fixture_host("ascend-910b-8x"), o);
  for (const auto& d : with_dcmi.devices) EXPECT_EQ(d.health(), Health::ok) << d.pci_bus_id;
}

TEST(HealthEval, EachDeviceListsItsSources) {
  TempDir tmp;
  auto root = with_kernel_log(tmp, "mi300x-8x");
  write_file(dev(root, "0000:05:00.0", "ras/umc_err_count"), "ue: 0\nce: 0\n");
  write_file(dev(root, "0000:05:00.0", "aer_dev_correctable"), "RxErr 0\nTOTAL_ERR_COR 0\n");
  auto r = run(root);
  auto names = [](const DeviceHealth& d) {
    std::string out;
    for (const auto& s : d.sources) out += s.source + (s.read ? "+ " : "- ");
    return out;
  };
  // AER and RAS are listed where the device has them; the MI300X's hwmon everywhere.
  EXPECT_EQ(names(device(r, "0000:05:00.0")), "pcie+ aer+ ras+ hwmon+ kernel-log+ ");
  EXPECT_EQ(names(device(r, "0000:26:00.0")), "pcie+ hwmon+ kernel-log+ ");
  auto j = health_to_json(r)["devices"][0]["sources"];
  EXPECT_EQ(j[0]["source"], "pcie");
  EXPECT_EQ(j[0]["essential"], true);
  EXPECT_EQ(j[1]["essential"], false);
  EXPECT_EQ(j[4]["detail"], "/dev/kmsg");
  EXPECT_FALSE(j[0].contains("reason"));
}

TEST(HealthEval, NvidiaPcieAndKernelLogEvidence) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  write_file(dev(root, "0000:18:00.0", "aer_dev_fatal"),
             "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 1\nCmpltAbrt 0\nUnxCmplt 0\n"
             "RxOF 0\nMalfTLP 0\nECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\n"
             "AtomicOpBlocked 0\nTLPBlockedErr 0\nPoisonTLPBlocked 0\nTOTAL_ERR_FATAL 1\n");
  write_file(dev(root, "0000:2a:00.0", "aer_dev_correctable"), "RxErr 5\nTOTAL_ERR_COR 5\n");
  write_file(dev(root, "0000:3a:00.0", "current_link_width"), "8\n");
  write_file(dev(root, "0000:3a:00.0", "current_link_speed"), "2.5 GT/s PCIe\n");
  write_file(dev(root, "0000:5d:00.0", "current_link_speed"), "2.5 GT/s PCIe\n");
  write_file(dev(root, "0000:9a:00.0", "config"), std::string(256, '\xff'));
  write_file(root + "/dev/kmsg",
             "3,100,1000000,-;NVRM: Xid (PCI:0000:ab:00): 79, pid=4242, GPU has fallen off the "
             "bus.\n"
             "3,101,2000000,-;NVRM: Xid (PCI:0000:ba:00): 48, pid=1, DBE (double bit error) ECC\n"
             "3,102,3000000,-;NVRM: Xid (PCI:0000:db:00): 94, pid=2, Contained: SM (0x1).\n"
             "3,103,3500000,-;NVRM: Xid (PCI:0000:db:00): 94, pid=3, Contained: SM (0x1).\n"
             "4,104,4000000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal\n"
             "6,105,5000000,-;NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64\n"
             "3,106,6000000,-;NVRM: Xid (PCI:0000:77:00): 79, a GPU this host does not list\n");
  auto r = run(root);
  auto* aer = find(device(r, "0000:18:00.0"), "pcie.aer.fatal");
  ASSERT_TRUE(aer);
  EXPECT_EQ(aer->severity, Severity::error);
  EXPECT_NE(aer->evidence.find("CmpltTO 1"), std::string::npos);
  EXPECT_EQ(device(r, "0000:18:00.0").health(), Health::critical);
  // Corrected errors are information: the device stays ok.
  ASSERT_TRUE(find(device(r, "0000:2a:00.0"), "pcie.aer.correctable"));
  EXPECT_EQ(device(r, "0000:2a:00.0").health(), Health::ok);
  EXPECT_EQ(device(r, "0000:3a:00.0").health(), Health::warning);
  ASSERT_TRUE(find(device(r, "0000:3a:00.0"), "pcie.link.degraded"));
  // A lower speed alone is power saving.
  ASSERT_TRUE(find(device(r, "0000:5d:00.0"), "pcie.link.speed-reduced"));
  EXPECT_EQ(device(r, "0000:5d:00.0").health(), Health::ok);
  ASSERT_TRUE(find(device(r, "0000:9a:00.0"), "pcie.fallen-off-bus"));
  auto* x79 = find(device(r, "0000:ab:00.0"), "xid");
  ASSERT_TRUE(x79);
  EXPECT_EQ(x79->severity, Severity::error);
  EXPECT_NE(x79->message.find("Xid 79"), std::string::npos);
  EXPECT_NE(x79->evidence.find("#100"), std::string::npos);
  EXPECT_NE(x79->action.find("reboot"), std::string::npos);
  EXPECT_EQ(device(r, "0000:ba:00.0").health(), Health::critical);
  auto* x94 = find(device(r, "0000:db:00.0"), "xid");
  ASSERT_TRUE(x94);
  EXPECT_EQ(x94->severity, Severity::warning);
  EXPECT_NE(x94->message.find("(2 times)"), std::string::npos);
  EXPECT_NE(x94->evidence.find("#103"), std::string::npos);  // the latest record
  // The NVSwitch event and the unknown GPU land on the host, never on a listed device.
  ASSERT_EQ(r.host.size(), 2u);
  EXPECT_TRUE(r.any_critical());
  auto j = health_to_json(r);
  EXPECT_EQ(j["schema"], "anygpu.health/v1");
  EXPECT_EQ(j["devices"][0]["health"], "critical");
  EXPECT_EQ(j["devices"][0]["findings"][0]["code"], "pcie.aer.fatal");
}

// anygpu.health/v1 and the text keep health's published words: "critical" for the top level.
TEST(HealthEval, FindingsRenderInTheirPublishedNames) {
  HealthReport r;
  r.devices.push_back({"0000:18:00.0", "nvidia", 0, {}, {{"pcie", true, true, "", ""}}});
  r.devices[0].findings = {{"pcie.aer.fatal", Severity::error, "m", "e", "a"},
                           {"pcie.link.degraded", Severity::warning, "w", "", ""},
                           {"pcie.aer.correctable", Severity::info, "i", "", ""}};
  auto j = health_to_json(r);
  EXPECT_EQ(
      j["devices"][0]["findings"][0].dump(),
      R"({"code":"pcie.aer.fatal","severity":"critical","message":"m","evidence":"e","action":"a"})");
  EXPECT_EQ(j["devices"][0]["findings"][1]["severity"], "warning");
  EXPECT_EQ(j["devices"][0]["findings"][2]["severity"], "info");
  EXPECT_EQ(j["devices"][0]["health"], "critical");
  auto text = health_to_text(r);
  EXPECT_NE(text.find("  [critical] pcie.aer.fatal: m\n      evidence: e\n      action:   a\n"),
            std::string::npos)
      << text;
}

TEST(HealthEval, SinceKeepsOnlyRecentRecords) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  write_file(root + "/proc/uptime", "1000.00 7000.00\n");
  write_file(root + "/dev/kmsg",
             "3,1,10000000,-;NVRM: Xid (PCI:0000:18:00): 79, old\n"
             "3,2,990000000,-;NVRM: Xid (PCI:0000:2a:00): 79, recent\n");
  HealthOptions o;
  o.since_seconds = 60;
  auto r = run(root, o);
  EXPECT_FALSE(find(device(r, "0000:18:00.0"), "xid"));
  EXPECT_TRUE(find(device(r, "0000:2a:00.0"), "xid"));
  auto all = run(root);
  EXPECT_TRUE(find(device(all, "0000:18:00.0"), "xid"));
}

TEST(HealthEval, AmdRasBadPagesThermalAndDriverMessages) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  write_file(dev(root, "0000:05:00.0", "ras/umc_err_count"), "ue: 2\nce: 7\n");
  write_file(dev(root, "0000:05:00.0", "ras/gfx_err_count"), "ue: 0\nce: 0\n");
  write_file(dev(root, "0000:26:00.0", "ras/gpu_vram_bad_pages"),
             "0x00012345 : 0x00001000 : R\n0x00012346 : 0x00001000 : P\n");
  write_file(dev(root, "0000:26:00.0", "ras/umc_err_count"), "ue: 0\nce: 3\n");
  write_file(root + "/dev/kmsg",
             "3,10,1000,-;amdgpu 0000:46:00.0: amdgpu: GPU reset begin!\n"
             " SUBSYSTEM=pci\n DEVICE=+pci:0000:46:00.0\n"
             "3,11,2000,-;[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, "
             "signaled seq=1, emitted seq=2\n"
             "3,12,3000,-;amdgpu 0000:65:00.0: amdgpu: 3 uncorrectable hardware errors detected "
             "in umc block\n");
  auto r = run(root);
  auto* ue = find(device(r, "0000:05:00.0"), "ras.uncorrectable");
  ASSERT_TRUE(ue);
  EXPECT_NE(ue->evidence.find("umc_err_count"), std::string::npos);
  EXPECT_TRUE(find(device(r, "0000:05:00.0"), "ras.correctable"));
  EXPECT_EQ(device(r, "0000:26:00.0").health(), Health::warning);
  EXPECT_TRUE(find(device(r, "0000:26:00.0"), "memory.retired-pages"));
  EXPECT_TRUE(find(device(r, "0000:46:00.0"), "gpu.reset"));
  EXPECT_EQ(device(r, "0000:65:00.0").health(), Health::critical);
  // A ring timeout that names no device, on a host with eight amdgpu devices, blames none.
  ASSERT_EQ(r.host.size(), 1u);
  EXPECT_EQ(r.host[0].code, "gpu.ring-timeout");
}

TEST(HealthEval, MalformedEvidenceIsAWarningNotAFinding) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  write_file(dev(root, "0000:05:00.0", "ras/umc_err_count"), "ue: many\n");
  write_file(dev(root, "0000:05:00.0", "aer_dev_fatal"), "\x01\x02garbage\n");
  write_file(root + "/dev/kmsg", "");
  auto r = run(root);
  // The essential sources were read: ok, with AER and RAS unread for what they held.
  const auto& d = device(r, "0000:05:00.0");
  EXPECT_EQ(d.health(), Health::ok);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[0].find("0000:05:00.0"), std::string::npos);
  int malformed = 0;
  for (const auto& s : d.sources)
    if ((s.source == "aer" || s.source == "ras") && !s.read && s.reason == "malformed") ++malformed;
  EXPECT_EQ(malformed, 2);
}

TEST(HealthEval, AKernelLogOfGarbageIsUnreadNotRead) {
  TempDir tmp;
  auto r = run(with_kernel_log(tmp, "h100-8x", "not a record\nnor this\n"));
  EXPECT_EQ(r.sources[0].reason, "malformed");
  EXPECT_EQ(r.devices[0].health(), Health::unknown);
}

TEST(HealthEval, ASuspendedDeviceIsNotTouched) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("laptop-hybrid"), root);
  write_file(dev(root, "0000:01:00.0", "config"), std::string(64, '\xff'));
  write_file(root + "/dev/kmsg", "");
  auto r = run(root);
  // Not fallen off the bus (never read), and not ok either: its state was not looked at.
  const auto& d = device(r, "0000:01:00.0");
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.health(), Health::unknown);
  ASSERT_FALSE(d.sources.empty());
  EXPECT_EQ(d.sources[0].source, "pcie");
  EXPECT_EQ(d.sources[0].reason, "suspended");
}

TEST(HealthEval, DeviceSelection) {
  auto root = test::fixture_host("workstation-mixed");
  HealthOptions o;
  o.devices = {"nvidia:0"};
  auto r = run(root, o);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].vendor, "nvidia");
  const auto& inv = test::fixture_inventory("workstation-mixed");
  auto unknown = select_devices(inv, {"0000:ff:00.0"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::host);
  EXPECT_NE(unknown.error().message.find("0000:ff:00.0"), std::string::npos);
  auto ambiguous = select_devices(inv, {"0"});
  ASSERT_FALSE(ambiguous);
  EXPECT_EQ(ambiguous.error().kind, ErrorKind::bad_input);
}

TEST(HealthDuration, ParsesUnitsAndRejectsNonsense) {
  EXPECT_EQ(*parse_duration("90"), 90);
  EXPECT_EQ(*parse_duration("15m"), 900);
  EXPECT_EQ(*parse_duration("2h"), 7200);
  EXPECT_EQ(*parse_duration("1d"), 86400);
  EXPECT_EQ(*parse_duration("36500d"), 36500.0 * 86400);
  // Past 100 years the seconds would overflow the nanosecond clocks they are compared with.
  for (const char* bad : {"", "-5m", "nan", "inf", "5x", "m", "1e999", "36501d",
                          "9999999999999999999h", "3153600001"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
}

}  // namespace
}  // namespace anygpu::health
