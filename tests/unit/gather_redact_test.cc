// The rules behind `gather --redact` and the manifest's privacy note: identifiers in text, the
// per-file formats (sysfs unique_id, KFD properties, /etc/group, PCI config space), and the
// kernel log records kept.
#include <gtest/gtest.h>

#include "gather/identifiers.h"
#include "gather/kernel_log_filter.h"
#include "gather/pci_config.h"
#include "gather/redact.h"

namespace anygpu::gather {

namespace {

std::string uuids(std::string_view text, size_t* count = nullptr) {
  Pseudonyms p;
  size_t n = 0;
  auto out = replace_uuids(text, p, n);
  if (count) *count = n;
  return out;
}

std::string config_space(std::vector<std::pair<size_t, uint32_t>> words, size_t size = 4096) {
  std::string c(size, '\0');
  for (auto [at, v] : words)
    for (int i = 0; i < 4; ++i) c[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return c;
}

Redactor redactor(bool apply) {
  RedactContext c;
  c.hostnames = hostname_forms({"gpu-node7.cluster.example.org"});
  c.gpu_bus_ids = {"0000:18:00.0"};
  c.kept_group_names = {"video", "render", "HwHiAiUser"};
  return Redactor(c, apply);
}

}  // namespace

TEST(GatherIdentifiers, UuidsAreReplacedConsistentlyWhateverTheirCaseOrPrefix) {
  size_t n = 0;
  auto out = uuids(
      "GPU UUID: \t GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08\n"
      "MIG-445D2601-9853-A7C7-C87C-E2FF0E3D2F08/1/0 and GPU-0d4a8c1e-5b7f-4e2a-9c3d-7e6f5a4b3c2d\n",
      &n);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(out,
            "GPU UUID: \t GPU-00000000-0000-4000-8000-000000000001\n"
            "MIG-00000000-0000-4000-8000-000000000001/1/0 and "
            "GPU-00000000-0000-4000-8000-000000000002\n");
}

TEST(GatherIdentifiers, NotAUuidIsLeftAlone) {
  for (const char* text : {"445d2601-9853-a7c7-c87c-e2ff0e3d2f0",    // one digit short
                           "445d2601-9853-a7c7-c87c-e2ff0e3d2f08a",  // a longer hex run
                           "x445d2601-9853-a7c7-c87c-e2ff0e3d2f08",  // inside a word
                           "445d2601-9853-a7c7-c87c_e2ff0e3d2f08",   // wrong separator
                           "445g2601-9853-a7c7-c87c-e2ff0e3d2f08", ""}) {
    size_t n = 7;
    EXPECT_EQ(uuids(text, &n), text);
    EXPECT_EQ(n, 0u) << text;
  }
}

TEST(GatherIdentifiers, MacAddressesButNotPciAddressesOrTimes) {
  Pseudonyms p;
  size_t n = 0;
  auto out = replace_macs(
      "peer a4:bf:01:23:45:67 at 0000:18:00.0, 12:34:56, again A4:BF:01:23:45:67; "
      "b8:ce:f6:00:11:22:33 is no MAC\n",
      p, n);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(out,
            "peer 02:00:00:00:00:01 at 0000:18:00.0, 12:34:56, again 02:00:00:00:00:01; "
            "b8:ce:f6:00:11:22:33 is no MAC\n");
}

TEST(GatherIdentifiers, HostNamesAsWholeWordsOnly) {
  auto names = hostname_forms({"gpu-node7.cluster.example.org\n", "gpu-node7"});
  EXPECT_EQ(names, (std::vector<std::string>{"gpu-node7", "gpu-node7.cluster.example.org"}));
  size_t n = 0;
  auto out = replace_words(
      "gpu-node7.cluster.example.org gpu-node7 gpu-node70 my-gpu-node7 gpu-node7_x (gpu-node7)",
      names, kRedactedHostname, n);
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(out, "redacted-host redacted-host gpu-node70 my-gpu-node7 gpu-node7_x (redacted-host)");
  EXPECT_TRUE(hostname_forms({"", "  \n"}).empty());
}

TEST(GatherDsn, FindsTheSerialOfEveryDsnCapability) {
  auto c = config_space({{0x100, 0x14010001}, {0x140, 0x18010003}, {0x180, 0x00010003}});
  EXPECT_EQ(dsn_serial_offsets(c), (std::vector<size_t>{0x144, 0x184}));
  c.replace(0x144, 8, "ABCDEFGH");
  size_t cleared = 0;
  auto out = clear_dsn_serials(c, cleared);
  EXPECT_EQ(cleared, 2u);
  EXPECT_EQ(out.size(), c.size());
  EXPECT_EQ(out.substr(0x144, 8), std::string(8, '\0'));
  EXPECT_EQ(out.substr(0, 0x144), c.substr(0, 0x144));
}

TEST(GatherDsn, MalformedCapabilityListsEndTheWalk) {
  // Conventional space only (what an unprivileged reader gets), empty, truncated headers.
  EXPECT_TRUE(dsn_serial_offsets(std::string(64, '\xff')).empty());
  EXPECT_TRUE(dsn_serial_offsets("").empty());
  EXPECT_TRUE(dsn_serial_offsets(config_space({{0x100, 0x00010003}}, 0x106)).empty());
  // A DSN whose serial is cut off by the end of the dump.
  EXPECT_TRUE(dsn_serial_offsets(config_space({{0x100, 0x00010003}}, 0x108)).empty());
  // A device gone (all ones) and no extended capabilities (zero).
  EXPECT_TRUE(dsn_serial_offsets(config_space({{0x100, 0xffffffff}})).empty());
  EXPECT_TRUE(dsn_serial_offsets(config_space({})).empty());
  // A list pointing back at itself, and one pointing into conventional space: each ends.
  EXPECT_EQ(dsn_serial_offsets(config_space({{0x100, 0x10010003}})), (std::vector<size_t>{0x104}));
  EXPECT_EQ(dsn_serial_offsets(config_space({{0x100, 0x04010001}})).size(), 0u);
  // Next pointer past the dump's end.
  EXPECT_EQ(dsn_serial_offsets(config_space({{0x100, 0x20010003}}, 0x200)),
            (std::vector<size_t>{0x104}));
}

TEST(GatherKernelLog, KeepsTheAcceleratorsRecordsWithTheirDictionaries) {
  std::string log =
      "6,1,100,-;Linux version 6.8.0-45-generic (buildd@lcy02-amd64-080)\n"
      "3,2,200,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1, name=python3, GPU has fallen off\n"
      "3,3,300,-;amdgpu 0000:46:00.0: amdgpu: GPU reset begin!\n SUBSYSTEM=pci\n"
      " DEVICE=+pci:0000:46:00.0\n"
      "6,4,400,-;mlx5_core 0000:19:00.0 enp25s0: Link up\n SUBSYSTEM=pci\n"
      " DEVICE=+pci:0000:19:00.0\n"
      "4,5,500,-;something 0000:18:00.0: a record naming the GPU's bus\n"
      "6,6,600,-;[drm] Initialized nvidia-drm 0.0.0 for 0000:18:00.0 on minor 1\n"
      "not a record\n"
      "6,8,800,-;systemd-logind[811]: New session 3 of user alice.\n";
  auto split = keep_gpu_records(log, {"0000:18:00.0"});
  EXPECT_EQ(split.records, 8u);
  EXPECT_EQ(split.kept_records, 4u);
  EXPECT_EQ(split.kept,
            "3,2,200,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1, name=python3, GPU has fallen off\n"
            "3,3,300,-;amdgpu 0000:46:00.0: amdgpu: GPU reset begin!\n SUBSYSTEM=pci\n"
            " DEVICE=+pci:0000:46:00.0\n"
            "4,5,500,-;something 0000:18:00.0: a record naming the GPU's bus\n"
            "6,6,600,-;[drm] Initialized nvidia-drm 0.0.0 for 0000:18:00.0 on minor 1\n");
  auto none = keep_gpu_records("", {});
  EXPECT_EQ(none.records, 0u);
  EXPECT_EQ(keep_gpu_records(" KEY=orphan dictionary line\n\n", {}).records, 0u);
}

// Cloud images are named after their distribution: os-release keeps its own words.
TEST(GatherRedactor, ADefaultHostNameLeavesOsReleaseAlone) {
  RedactContext c;
  c.hostnames = hostname_forms({"ubuntu"});
  Redactor r(c, true);
  std::string os = "NAME=\"Ubuntu\"\nID=ubuntu\nHOME_URL=\"https://www.ubuntu.com/\"\n";
  EXPECT_EQ(r.file("/etc/os-release", os), os);
  EXPECT_EQ(r.file("/proc/sys/kernel/hostname", "ubuntu\n"), "redacted-host\n");
  EXPECT_EQ(r.found().at(Identifying::host_name),
            std::vector<std::string>{"/proc/sys/kernel/hostname"});
}

TEST(GatherRedactor, GroupsKeepNamesAndIdsOnly) {
  auto r = redactor(true);
  auto out = r.file("/etc/group",
                    "root:x:0:\nvideo:x:44:alice,bob\n# comment\nbroken line\nalice:x:1001:\n"
                    "HwHiAiUser:x:1000:carol\nnogroup:x:65534:\n");
  EXPECT_EQ(out,
            "root:x:0:\nvideo:x:44:\ngroup1001:x:1001:\nHwHiAiUser:x:1000:\nnogroup:x:65534:\n");
  ASSERT_EQ(r.found().count(Identifying::user_name), 1u);
  auto plain = redactor(false);
  EXPECT_EQ(plain.file("/etc/group", "video:x:44:alice\n"), "video:x:44:alice\n");
  EXPECT_EQ(plain.found().count(Identifying::user_name), 1u);
  auto clean = redactor(false);
  (void)clean.file("/etc/group", "root:x:0:\nvideo:x:44:\n");
  EXPECT_TRUE(clean.found().empty());
}

TEST(GatherRedactor, OneDeviceIdInHexAndInDecimalGetsOneStandIn) {
  auto r = redactor(true);
  // 0x07548e1d791ff58e = 528203313546524046: amdgpu's sysfs and KFD print the same id.
  EXPECT_EQ(r.file("/sys/devices/pci0000:00/0000:05:00.0/unique_id", "07548e1d791ff58e\n"),
            "0000000000000001\n");
  EXPECT_EQ(r.file("/sys/devices/virtual/kfd/kfd/topology/nodes/2/properties",
                   "simd_count 1216\nhive_id 11652996780491407634\nunique_id 528203313546524046\n"
                   "num_xcc 8\n"),
            "simd_count 1216\nhive_id 2\nunique_id 1\nnum_xcc 8\n");
  EXPECT_EQ(r.file("/sys/devices/virtual/kfd/kfd/topology/nodes/0/properties", "unique_id 0\n"),
            "unique_id 0\n");  // the drivers' "none" stays
  EXPECT_EQ(r.file("/sys/devices/pci0000:00/0000:05:00.0/unique_id", "not hex\n"), "not hex\n");
  EXPECT_EQ(r.file("/sys/devices/pci0000:00/0000:05:00.0/serial_number", "692312345678\n"),
            "redacted\n");
  EXPECT_EQ(r.found().at(Identifying::device_id).size(), 3u);
}

TEST(GatherRedactor, ReportsWithoutChangingWhenNotApplying) {
  auto r = redactor(false);
  std::string info = "GPU UUID: \t GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08\n";
  EXPECT_EQ(r.file("/proc/driver/nvidia/gpus/0000:18:00.0/information", info), info);
  EXPECT_EQ(r.file("/proc/sys/kernel/hostname", "gpu-node7\n"), "gpu-node7\n");
  std::string log = "6,1,1,-;dhcp: lease for gpu-node7.cluster.example.org\n";
  EXPECT_EQ(r.kernel_log("/dev/kmsg", log), log);
  EXPECT_EQ(r.log_records(), 1u);
  EXPECT_EQ(r.log_gpu_records(), 0u);
  EXPECT_EQ(r.found().at(Identifying::device_id),
            std::vector<std::string>{"/proc/driver/nvidia/gpus/0000:18:00.0/information"});
  EXPECT_EQ(r.found().at(Identifying::host_name),
            std::vector<std::string>{"/proc/sys/kernel/hostname"});
  EXPECT_EQ(r.found().at(Identifying::kernel_log), std::vector<std::string>{"/dev/kmsg"});
}

TEST(GatherRedactor, BinaryFilesOtherThanConfigSpaceAreLeftAsTheyAre) {
  auto r = redactor(true);
  std::string cache("glibc-ld.so.cache1.1\0gpu-node7\0", 31);
  EXPECT_EQ(r.file("/etc/ld.so.cache", cache), cache);
  auto config = config_space({{0x100, 0x00010003}});
  config.replace(0x104, 8, "SERIAL!!");
  auto out = r.file("/sys/devices/pci0000:15/0000:18:00.0/config", config);
  EXPECT_EQ(out.substr(0x104, 8), std::string(8, '\0'));
  EXPECT_EQ(r.found().at(Identifying::device_id).size(), 1u);
}

}  // namespace anygpu::gather
