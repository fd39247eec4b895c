// The health parsers against the kernel's own formats, and their malformed inputs.
#include <gtest/gtest.h>

#include "health/aer.h"
#include "health/kmsg.h"
#include "health/ras.h"
#include "health/rules.h"

namespace anygpu::health {
namespace {

// As drivers/pci/pcie/aer.c prints aer_dev_correctable (names from aer_correctable_error_string).
constexpr const char* kAerCorrectable =
    "RxErr 3\nBadTLP 1\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\n"
    "HeaderOF 0\nTOTAL_ERR_COR 4\n";

TEST(HealthAer, ParsesTheKernelFormat) {
  auto c = parse_aer_counters(kAerCorrectable);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->count(), 4u);
  EXPECT_EQ(c->by_type.at("RxErr"), 3u);
  EXPECT_EQ(c->nonzero(), "BadTLP 1, RxErr 3");
}

TEST(HealthAer, SumsWhenThereIsNoTotalLine) {
  auto c = parse_aer_counters("Undefined 0\nDLP 2\nSDES 1\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->count(), 3u);
}

TEST(HealthAer, RejectsMalformedLinesWithTheirNumber) {
  for (const char* bad : {"RxErr\n", "RxErr -1\n", "RxErr 3 4\n", "Rx-Err 3\n", "RxErr 0x3\n", "",
                          "\n\n", "RxErr 99999999999999999999999\n"}) {
    auto c = parse_aer_counters(bad);
    EXPECT_FALSE(c) << bad;
  }
  auto c = parse_aer_counters("RxErr 1\nBadTLP x\n");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("line 2"), std::string::npos);
}

TEST(HealthKmsg, ParsesRecordsAndDictionaries) {
  auto log = parse_kmsg(
      "3,1201,5123456789,-;NVRM: Xid (PCI:0000:18:00): 79, pid=4242, GPU has fallen off the "
      "bus.\n"
      "3,1202,5123500000,-;amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!\n"
      " SUBSYSTEM=pci\n"
      " DEVICE=+pci:0000:c1:00.0\n"
      "4,1203,5123600000,c,caller=T1;[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx "
      "timeout\n");
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.malformed, 0);
  EXPECT_EQ(log.records[0].priority, 3);
  EXPECT_EQ(log.records[0].sequence, 1201u);
  EXPECT_EQ(log.records[0].timestamp_us, 5123456789u);
  EXPECT_FALSE(log.records[0].device);
  EXPECT_EQ(log.records[1].device.value_or(""), "0000:c1:00.0");
  EXPECT_EQ(log.records[1].driver.value_or(""), "amdgpu");
  EXPECT_EQ(log.records[2].message.substr(0, 5), "[drm:");
}

TEST(HealthKmsg, SkipsMalformedRecordsAndCountsThem) {
  auto log = parse_kmsg(
      "no header here\n"
      "6,abc,1,-;bad sequence\n"
      "6,1,2;too few fields\n"
      " DEVICE=+pci:0000:01:00.0\n"  // a dictionary line without its record
      "6,7,8,-;fine\n"
      "99999,1,1,-;priority out of range\n");
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].message, "fine");
  EXPECT_FALSE(log.records[0].device);
  EXPECT_EQ(log.malformed, 4);
}

// syslog(2) READ_ALL, as printk's info_print_prefix writes it with and without printk.time and
// CONFIG_PRINTK_CALLER (a multi-line message repeats the prefix on each line).
TEST(HealthSyslog, ParsesTheReadAllFormat) {
  auto log = parse_syslog_text(
      "<3>[ 5123.000042] NVRM: Xid (PCI:0000:2a:00): 79, pid=9, GPU has fallen off the bus.\n"
      "<11>[    0.500000][    T1] amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!\n"
      "<6>[   12.000001] first line\n<6>[   12.000001] second line\n"
      "<4>no time at all\n"
      "<6>[ C3] caller only\n");
  EXPECT_EQ(log.malformed, 0);
  ASSERT_EQ(log.records.size(), 6u);
  EXPECT_EQ(log.records[0].priority, 3);
  EXPECT_EQ(log.records[0].timestamp_us, 5123000042u);
  EXPECT_EQ(log.records[0].sequence, 1u);  // the line's number
  EXPECT_TRUE(parse_xid(log.records[0].message));
  EXPECT_EQ(log.records[1].priority, 3);  // facility 1 (user) << 3 | 3
  EXPECT_EQ(log.records[1].message, "amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!");
  EXPECT_EQ(log.records[1].device.value_or(""), "0000:c1:00.0");
  EXPECT_EQ(log.records[1].driver.value_or(""), "amdgpu");
  EXPECT_EQ(log.records[3].message, "second line");
  EXPECT_EQ(log.records[4].message, "no time at all");
  EXPECT_EQ(log.records[4].timestamp_us, 0u);
  EXPECT_EQ(log.records[5].message, "caller only");
  EXPECT_EQ(log.untimed, 2);
}

TEST(HealthSyslog, CountsMalformedLines) {
  auto log = parse_syslog_text(
      "no priority\n<>[ 1.000000] empty priority\n<x> letters\n<1024> too large\n"
      "<3 unclosed\n\n<6>[ 1.5] short fraction stays in the message\n"
      "<6>[99999999999999999999.000000] huge\n");
  EXPECT_EQ(log.malformed, 5);
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[0].message, "[ 1.5] short fraction stays in the message");
  EXPECT_EQ(log.records[0].timestamp_us, 0u);
  EXPECT_EQ(log.records[1].message, "[99999999999999999999.000000] huge");
}

TEST(HealthXid, ParsesEveryPrintedForm) {
  auto a = parse_xid("NVRM: Xid (PCI:0000:18:00): 79, pid=4242, GPU has fallen off the bus.");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->number, 79);
  EXPECT_EQ(a->bus, "0000:18:00");
  EXPECT_FALSE(a->switch_event);
  auto mig = parse_xid(
      "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User "
      "Channel (0x9). RST: No, D-RST: No");
  ASSERT_TRUE(mig);
  EXPECT_EQ(mig->number, 94);
  EXPECT_EQ(mig->bus, "0000:01:00");
  auto old = parse_xid("NVRM: Xid (0000:01:00): 3, C 00000005");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->number, 3);
  auto sx = parse_xid("nvidia-nvswitch3: SXid (PCI:0000:C3:00.0): 12028, Non-fatal, Link 32");
  ASSERT_TRUE(sx);
  EXPECT_TRUE(sx->switch_event);
  EXPECT_EQ(sx->bus, "0000:c3:00.0");
  EXPECT_EQ(sx->number, 12028);
}

TEST(HealthXid, RejectsWhatIsNotAnXid) {
  for (const char* m : {"NVRM: loading NVIDIA UNIX x86_64 Kernel Module", "NVRM: Xid (", "Xid ()",
                        "NVRM: Xid (PCI:0000:18:00) 79", "NVRM: Xid (PCI:0000:18:00): x",
                        "NVRM: Xid (PCI:zz:18:00): 79", "NVRM: Xid (PCI:0000): 79"})
    EXPECT_FALSE(parse_xid(m)) << m;
}

TEST(HealthRas, ParsesCountsAndBadPages) {
  auto c = parse_ras_count("ue: 2\nce: 17\n");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->uncorrectable, 2u);
  EXPECT_EQ(c->correctable, 17u);
  auto p = parse_bad_pages(
      "0x00000001 : 0x00001000 : R\n0x00000002 : 0x00001000 : R\n0x00000009 : 0x00001000 : P\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->retired, 2u);
  EXPECT_EQ(p->pending, 1u);
  EXPECT_EQ(p->failed, 0u);
  EXPECT_TRUE(parse_bad_pages(""));  // no bad pages at all
}

TEST(HealthRas, RejectsMalformedInput) {
  for (const char* bad : {"", "ue 2\n", "ue: -1\n", "xe: 1\n", "ue: 1 2\n"})
    EXPECT_FALSE(parse_ras_count(bad)) << bad;
  for (const char* bad : {"0x1 : 0x1000\n", "0x1 : 0x1000 : X\n", "zz : 0x1000 : R\n"})
    EXPECT_FALSE(parse_bad_pages(bad)) << bad;
}

TEST(HealthRules, TheShippedTableLoadsAndCarriesTheCatalogue) {
  const auto& r = builtin_health_rules();
  EXPECT_EQ(r.for_xid(79).severity, Severity::error);
  EXPECT_EQ(r.for_xid(48).severity, Severity::error);
  EXPECT_EQ(r.for_xid(94).severity, Severity::warning);
  EXPECT_FALSE(r.for_xid(99999).verified);  // the unknown-Xid fallback
  EXPECT_FALSE(r.messages.empty());
}

TEST(HealthRules, MalformedTablesNameTheirLocation) {
  auto dup = parse_health_rules(
      "schema: 1\nxid:\n  - {id: 1, severity: info, summary: a, action: b}\n"
      "  - {id: 1, severity: info, summary: a, action: b}\n"
      "unknown_xid: {severity: info, action: x}\nmessages: []\n",
      "h.yaml");
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("h.yaml:4:"), std::string::npos) << dup.error().message;
  auto sev = parse_health_rules(
      "schema: 1\nxid: []\nunknown_xid: {severity: fatal, action: x}\nmessages: []\n", "h.yaml");
  ASSERT_FALSE(sev);
  EXPECT_NE(sev.error().message.find("h.yaml:3:"), std::string::npos) << sev.error().message;
  auto empty = parse_health_rules(
      "schema: 1\nxid: []\nunknown_xid: {severity: info, action: x}\nmessages:\n"
      "  - {driver: x, contains: [''], code: c, severity: info, message: m, action: a}\n",
      "h.yaml");
  EXPECT_FALSE(empty);
}

}  // namespace
}  // namespace anygpu::health
