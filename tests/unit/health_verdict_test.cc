// The node verdict behind `health --slurm` and `k8s taint`, from real evidence on fixture
// copies: which findings take a node out of service, which devices are blind, and that no
// informational code of data/health.yaml ever drains or taints a node.
#include <gtest/gtest.h>

#include <cstdio>

#include "cluster/k8s_taint.h"
#include "cluster/slurm_drain.h"
#include "health/health.h"
#include "health/rules.h"
#include "health/verdict.h"
#include "test_support.h"

namespace anygpu::health {
namespace {

using test::TempDir;
using test::write_file;

HealthReport evaluate(const std::string& root, const LibraryHealth* library = nullptr) {
  HostRoot host(HostOptions{root, false, std::chrono::milliseconds(1000)});
  HealthOptions o;
  o.library = library;
  auto r = evaluate_health(host, test::probe_root(root), o);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? std::move(r.value()) : HealthReport{};
}

std::string copy_of(TempDir& tmp, const std::string& fixture, const std::string& kmsg) {
  auto root = tmp / fixture;
  test::copy_tree(test::fixture_host(fixture), root);
  write_file(root + "/dev/kmsg", kmsg);
  return root;
}

std::string xid_record(int seq, const std::string& bus, int xid) {
  char line[160];
  std::snprintf(line, sizeof line, "3,%d,%d000000,-;NVRM: Xid (PCI:%s): %d, pid=7, event.\n", seq,
                seq, bus.c_str(), xid);
  return line;
}

// No culprit at any level, so neither consequence acts.
void expect_no_action(const HealthReport& r, const std::string& what) {
  for (auto at : {Severity::info, Severity::warning, Severity::error}) {
    auto v = node_verdict(r, at);
    EXPECT_FALSE(v.out_of_service()) << what << ": " << v.culprits.front().code;
    EXPECT_EQ(drain_reason(v), "") << what;
    auto taint = unhealthy_taint(v);
    ASSERT_TRUE(taint) << what;
    EXPECT_FALSE(*taint) << what;
  }
}

TEST(HealthVerdict, AnXid79DrainsNamingTheCodeAndTheBus) {
  TempDir tmp;
  auto r = evaluate(copy_of(tmp, "h100-8x", xid_record(1, "0000:2a:00", 79)));
  auto v = node_verdict(r);
  ASSERT_EQ(v.culprits.size(), 1u);
  EXPECT_EQ(v.culprits[0].code, "xid");
  EXPECT_EQ(v.culprits[0].pci_bus_id, "0000:2a:00.0");
  EXPECT_TRUE(v.blind.empty());
  EXPECT_EQ(drain_reason(v), "anygpu: xid 0000:2a:00.0");
  auto taint = unhealthy_taint(v);
  ASSERT_TRUE(taint && *taint);
  EXPECT_EQ((**taint)["value"], "xid");
}

TEST(HealthVerdict, TheWorstFindingLeadsAndTheOthersAreCounted) {
  TempDir tmp;
  // A degraded link (warning) on the first GPU, an Xid 48 (critical) on the fifth, an Xid 63
  // (warning) on the second.
  auto root =
      copy_of(tmp, "h100-8x", xid_record(1, "0000:2a:00", 63) + xid_record(2, "0000:9a:00", 48));
  write_file(root + "/sys/bus/pci/devices/0000:18:00.0/current_link_width", "8\n");
  auto r = evaluate(root);
  auto critical = node_verdict(r);
  ASSERT_EQ(critical.culprits.size(), 1u);
  EXPECT_EQ(drain_reason(critical), "anygpu: xid 0000:9a:00.0");
  auto warning = node_verdict(r, Severity::warning);
  ASSERT_EQ(warning.culprits.size(), 3u);
  EXPECT_EQ(drain_reason(warning), "anygpu: xid 0000:9a:00.0 +2 more");
  EXPECT_EQ(warning.culprits[1].code, "pcie.link.degraded");  // then in device order
  EXPECT_EQ(warning.culprits[2].pci_bus_id, "0000:2a:00.0");
}

TEST(HealthVerdict, WarningsAloneDrainOnlyWhenAsked) {
  TempDir tmp;
  auto r = evaluate(copy_of(tmp, "h100-8x", xid_record(1, "0000:2a:00", 63)));
  EXPECT_FALSE(node_verdict(r).out_of_service());
  EXPECT_TRUE(node_verdict(r, Severity::warning).out_of_service());
}

TEST(HealthVerdict, UnknownDevicesAreBlindNotCulprits) {
  // The fixture carries no kernel log: every GPU is unknown, which drains nothing.
  auto r = evaluate(test::fixture_host("h100-8x"));
  auto v = node_verdict(r, Severity::warning);
  EXPECT_FALSE(v.out_of_service());
  ASSERT_EQ(v.blind.size(), 8u);
  EXPECT_EQ(v.blind[0], "0000:18:00.0");
  // What was seen still counts where the rest is blind.
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  write_file(root + "/sys/bus/pci/devices/0000:5d:00.0/config", std::string(256, '\xff'));
  auto fallen = node_verdict(evaluate(root));
  ASSERT_EQ(fallen.culprits.size(), 1u);
  EXPECT_EQ(fallen.culprits[0].code, "pcie.fallen-off-bus");
  EXPECT_EQ(fallen.blind.size(), 7u);
}

// Item: false positives are a budget. Every entry data/health.yaml marks `info`, produced
// through the production path (the kernel log, a library's facts), is found as info and takes
// no node out of service at any level.
TEST(HealthVerdict, NoInformationalCodeOfTheDataDrainsOrTaints) {
  const auto& rules = builtin_health_rules();
  TempDir tmp;
  int walked = 0;

  std::string log;
  int seq = 1, info_xids = 0;
  for (const auto& [id, rule] : rules.xid)
    if (rule.severity == Severity::info) log += xid_record(seq++, "0000:2a:00", id), ++info_xids;
  EXPECT_GE(info_xids, 1) << "the Xid table lost its informational entries";
  auto xids = evaluate(copy_of(tmp, "h100-8x", log));
  int seen = 0;
  for (const auto& f : xids.devices[1].findings)
    seen += f.code == "xid" && f.severity == Severity::info;
  EXPECT_EQ(seen, info_xids);
  expect_no_action(xids, "informational Xids");
  walked += info_xids;

  for (const auto& m : rules.messages) {
    if (m.severity != Severity::info) continue;
    ADD_FAILURE() << "informational message " << m.code
                  << ": produce it here from a kernel record of driver " << m.driver;
  }

  // DCMI's not-handled fault codes, all at once on one NPU.
  LibraryHealth dcmi;
  auto npu_root = copy_of(tmp, "ascend-910b-8x", "");
  auto npus = test::probe_root(npu_root);
  for (const auto& d : npus.devices) dcmi.devices[d.pci.address.str()].api = "dcmi";
  auto& codes = dcmi.devices[npus.devices[0].pci.address.str()].fault_codes.emplace();
  for (const auto& [code, level] : rules.dcmi_fault_codes)
    if (rules.dcmi_fault_levels[level].severity == Severity::info) codes.push_back(code);
  EXPECT_GE(codes.size(), 1u) << "the fault-code table lost its not-handled level";
  auto faults = evaluate(npu_root, &dcmi);
  size_t fault_findings = 0;
  for (const auto& f : faults.devices[0].findings)
    if (f.code == "device.fault-code") {
      EXPECT_EQ(f.severity, Severity::info) << f.message;
      ++fault_findings;
    }
  EXPECT_EQ(fault_findings, codes.size());
  expect_no_action(faults, "not-handled DCMI fault codes");
  walked += static_cast<int>(codes.size());

  // Library codes: each informational one from the facts that produce it.
  for (const auto& [code, rule] : rules.library) {
    if (rule.severity != Severity::info) continue;
    if (code != "gpu.program-fault") {
      ADD_FAILURE() << "informational library code " << code << ": produce it here";
      continue;
    }
    auto root = copy_of(tmp, "intel-max-arc", "");
    auto gpus = test::probe_root(root);
    LibraryHealth ze;
    for (const auto& d : gpus.devices) ze.devices[d.pci.address.str()].api = "level-zero";
    auto& ras = ze.devices[gpus.devices[0].pci.address.str()].ras.emplace();
    ras.uncorrectable[1] = 3;  // zes_ras_error_cat_t PROGRAMMING_ERRORS
    auto r = evaluate(root, &ze);
    ASSERT_FALSE(r.devices[0].findings.empty());
    EXPECT_EQ(r.devices[0].findings[0].code, code);
    EXPECT_EQ(r.devices[0].findings[0].severity, Severity::info);
    expect_no_action(r, code);
    ++walked;
  }
  EXPECT_GT(walked, 100);  // the Xids, ~100 fault codes and the library's
}

}  // namespace
}  // namespace anygpu::health
