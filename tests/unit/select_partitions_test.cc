// Selection on partitioned hosts (SPEC "Partitions"): the partition is the unit. The fixtures are
// an 8×MI300X node in CPX/NPS4 (a real capture: GPU 0000:e5:00.0 shows 7 partitions) and an
// 8×H100 node with MIG on GPUs 0-2 only. MIG UUIDs come only from NVML, which the fixture lacks:
// tests that need them add them as NVML would (MIG-<uuid>, the partition's id).
#include <gtest/gtest.h>

#include <map>

#include "select/select.h"
#include "select/units.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {

AcceleratorConfig config(const std::string& text) {
  auto c = parse_accelerator_config(text, "accelerator-config.yaml");
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? *c : AcceleratorConfig{};
}

Result<Selection> run(const Inventory& inv, const std::string& text, SelectInputs in = {}) {
  return select_devices(inv, config(text), in);
}

Selection pick_with(const Inventory& inv, const AcceleratorConfig& c) {
  auto s = select_devices(inv, c, {});
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

Selection pick(const Inventory& inv, const std::string& text, SelectInputs in = {}) {
  auto s = run(inv, text, in);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

std::string env(const Selection& s, const std::string& name) {
  for (const auto& [k, v] : s.env)
    if (k == name) return v;
  return "(unset)";
}

std::string all(const std::vector<std::string>& lines) {
  return join(lines, "\n");
}

const Inventory& cpx() {
  return test::fixture_inventory("mi300x-8x-cpx");
}

const Inventory& mig() {
  return test::fixture_inventory("h100-8x-mig");
}

std::string mig_uuid(int gpu, int partition) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "MIG-%08d-0000-4000-8000-%012d", gpu, partition);
  return buf;
}

// The MIG host as NVML would complete it: every MIG instance's UUID, which becomes its id.
Inventory mig_with_uuids() {
  Inventory inv = mig();
  for (auto& d : inv.devices)
    for (auto& p : d.partitions) {
      p.uuid = mig_uuid(d.index, p.index);
      p.id = *p.uuid;
    }
  return inv;
}

}  // namespace

TEST(SelectPartitions, TheFixturesAreWhatTheTestsAssume) {
  ASSERT_EQ(cpx().devices.size(), 8u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(cpx().devices[i].partitions.size(), 8u);
  EXPECT_EQ(cpx().devices[7].pci.address.str(), "0000:e5:00.0");
  EXPECT_EQ(cpx().devices[7].partitions.size(), 7u);
  ASSERT_EQ(mig().devices.size(), 8u);
  EXPECT_EQ(mig().devices[0].partitions.size(), 7u);
  EXPECT_EQ(mig().devices[1].partitions.size(), 3u);
  EXPECT_EQ(mig().devices[2].partitions.size(), 1u);
  for (size_t i = 3; i < 8; ++i) EXPECT_FALSE(mig().devices[i].partitioning);
  EXPECT_EQ(selection_units(cpx()).size(), 63u);
  EXPECT_EQ(selection_units(mig()).size(), 16u);  // 11 MIG instances, 5 whole GPUs
}

TEST(SelectPartitions, EveryCpxPartitionIsAUnitNumberedAsHipDoes) {
  auto s = pick(cpx(), "");
  ASSERT_EQ(s.devices.size(), 63u);
  ASSERT_EQ(s.partitions.size(), 63u);
  // HIP/ROCr number the logical GPUs in KFD node order: 0-55 on the first seven GPUs, 56-62 on
  // the one with seven partitions.
  std::vector<std::string> ids;
  for (int i = 0; i < 63; ++i) ids.push_back(std::to_string(i));
  EXPECT_EQ(env(s, "HIP_VISIBLE_DEVICES"), join(ids, ","));
  EXPECT_EQ(s.partition_of(62)->id, "0000:e5:00.0/6");
  EXPECT_TRUE(env(s, "ANYGPU_DEVICES").starts_with("0000:05:00.0/0,0000:05:00.0/1,"));
  EXPECT_NE(all(s.reasons).find("matched 63 amd units"), std::string::npos) << all(s.reasons);
  EXPECT_TRUE(s.warnings.empty()) << all(s.warnings);
}

TEST(SelectPartitions, ACountTakesPartitionsOfOneDeviceFirst) {
  auto s = pick(cpx(), "devices: 3\n");
  ASSERT_EQ(s.devices.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.devices[i].pci.address.str(), "0000:05:00.0");
    EXPECT_EQ(s.partition_of(i)->index, static_cast<int>(i));
  }
  EXPECT_EQ(env(s, "HIP_VISIBLE_DEVICES"), "0,1,2");
  EXPECT_EQ(env(s, "ANYGPU_DEVICES"), "0000:05:00.0/0,0000:05:00.0/1,0000:05:00.0/2");
  // More than one device has: then by NUMA node as for whole devices.
  auto wide = pick(cpx(), "devices: 12\n");
  ASSERT_EQ(wide.devices.size(), 12u);
  EXPECT_EQ(wide.devices[8].pci.address.str(), "0000:27:00.0");
  EXPECT_NE(all(wide.reasons).find("NUMA node 0"), std::string::npos) << all(wide.reasons);
}

TEST(SelectPartitions, IdFormsNameTheSamePartition) {
  for (auto text :
       {"devices: [1:3]\n", "devices: [\"0000:27:00.0/3\"]\n", "devices: [27:00.0/3]\n"}) {
    SCOPED_TRACE(text);
    auto s = pick(cpx(), text);
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_EQ(s.partition_of(0)->id, "0000:27:00.0/3");
    EXPECT_EQ(env(s, "HIP_VISIBLE_DEVICES"), "11");
  }
}

TEST(SelectPartitions, TheGpuWithSevenPartitions) {
  auto s = pick(cpx(), "devices: [7:6, 7:0]\n");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(env(s, "HIP_VISIBLE_DEVICES"), "56,62");
  auto absent = run(cpx(), "devices: [7:7]\n");
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().kind, ErrorKind::host);
  EXPECT_NE(absent.error().message.find("no device 7:7 (amd 7 (0000:e5:00.0) has partitions "
                                        "0,1,2,3,4,5,6)"),
            std::string::npos)
      << absent.error().message;
  // Seven are there; eight are not.
  EXPECT_TRUE(run(cpx(), "devices: [7:0, 7:1, 7:2, 7:3, 7:4, 7:5, 7:6]\n"));
}

TEST(SelectPartitions, APartitionedDeviceNamedWholeIsRefused) {
  for (auto text : {"devices: [0]\n", "devices: [\"0000:05:00.0\"]\n"}) {
    auto s = run(cpx(), text);
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.error().kind, ErrorKind::host);
    EXPECT_NE(s.error().message.find("which is partitioned (CPX, 8 partitions): its partitions "
                                     "are the units; name them, e.g. 0:0 or 0000:05:00.0/0"),
              std::string::npos)
        << s.error().message;
  }
}

TEST(SelectPartitions, MalformedPartitionIdsAreBadInput) {
  for (auto text : {"devices: [\"0:x\"]\n", "devices: [\"0000:05:00.0/\"]\n", "devices: [MIG-]\n",
                    "devices: [\"0000:05:00.0/1/2\"]\n", "devices: [\"MIG-a b\"]\n",
                    "devices: [\"1:2:3\"]\n", "devices: [\"0:70000\"]\n"}) {
    auto c = parse_accelerator_config(text, "c.yaml");
    ASSERT_FALSE(c) << text;
    EXPECT_EQ(c.error().kind, ErrorKind::bad_input);
    EXPECT_NE(c.error().message.find("c.yaml:1:"), std::string::npos) << c.error().message;
  }
  auto twice = parse_accelerator_config("devices: [0:1, \"0:1\"]\n", "c.yaml");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("listed twice"), std::string::npos);
}

TEST(SelectPartitions, CriteriaJudgeAPartitionByItsOwnMemoryAndItsParentsArch) {
  // KFD gives these CPX partitions no memory size: unknown is never enough.
  auto memory = run(cpx(),
                    "device_selection_policy:\n  - priority: 1\n    criteria:\n"
                    "      - {type: memory_gb, min: 16}\n");
  ASSERT_TRUE(memory);
  EXPECT_EQ(memory->vendor, "cpu");
  EXPECT_NE(all(memory->reasons).find("memory size unknown"), std::string::npos);
  auto arch = pick(cpx(),
                   "device_selection_policy:\n  - priority: 1\n    criteria:\n"
                   "      - {type: gpu_compute_capability, equals: [gfx942]}\n");
  EXPECT_EQ(arch.devices.size(), 63u);
  // The partition's own memory where known.
  Inventory sized = cpx();
  sized.devices[2].partitions[5].memory_total_bytes = uint64_t{24} << 30;
  auto s = pick(sized,
                "device_selection_policy:\n  - priority: 1\n    criteria:\n"
                "      - {type: memory_gb, min: 24}\n");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.partition_of(0)->id, "0000:47:00.0/5");
  EXPECT_EQ(s.devices[0].memory_total_bytes, uint64_t{24} << 30);
}

TEST(SelectPartitions, MigWithoutNvmlLeavesTheInstancesOutAndSaysWhy) {
  auto s = pick(mig(), "");
  EXPECT_EQ(env(s, "CUDA_VISIBLE_DEVICES"), "3,4,5,6,7");
  EXPECT_TRUE(s.partitions.empty());
  EXPECT_NE(all(s.reasons).find("left out 11 nvidia units"), std::string::npos) << all(s.reasons);
  EXPECT_NE(all(s.reasons).find("no MIG UUID"), std::string::npos);
  auto listed = run(mig(), "devices: [0:1]\n");
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().kind, ErrorKind::host);
  EXPECT_NE(listed.error().message.find("listed device 0:1 is not an eligible nvidia partition "
                                        "(no MIG UUID: CUDA takes a MIG instance only as "
                                        "MIG-<uuid>"),
            std::string::npos)
      << listed.error().message;
  auto too_many = run(mig(), "backend: cuda\ndevices: 6\n");
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().message.find("needs 6 units, 5 qualify"), std::string::npos)
      << too_many.error().message;
}

TEST(SelectPartitions, MigInstancesAreNamedByUuidAndWarnedAbout) {
  auto inv = mig_with_uuids();
  auto two = pick(inv, "devices: 2\n");
  ASSERT_EQ(two.devices.size(), 2u);
  EXPECT_EQ(env(two, "CUDA_VISIBLE_DEVICES"), mig_uuid(0, 0) + "," + mig_uuid(0, 1));
  EXPECT_EQ(env(two, "ANYGPU_DEVICES"), mig_uuid(0, 0) + "," + mig_uuid(0, 1));
  ASSERT_EQ(two.warnings.size(), 1u);
  EXPECT_NE(two.warnings[0].find("no NVLink/NVSwitch peer access"), std::string::npos);
  // Every id form: the UUID, the index form nvidia-ctk uses, the bus id form.
  for (auto ref : {mig_uuid(1, 2), std::string("1:2"), std::string("\"0000:2a:00.0/2\"")}) {
    auto s = pick(inv, "devices: [" + ref + "]\n");
    ASSERT_EQ(s.devices.size(), 1u) << ref;
    EXPECT_EQ(env(s, "CUDA_VISIBLE_DEVICES"), mig_uuid(1, 2));
    EXPECT_TRUE(s.warnings.empty());
  }
  // A MIG instance and a whole GPU: one form for the list (UUIDs), and a warning.
  auto mixed = pick(inv, "devices: [1:0, 4]\n");
  EXPECT_EQ(env(mixed, "CUDA_VISIBLE_DEVICES"), mig_uuid(1, 0) + "," + *inv.devices[4].uuid);
  EXPECT_EQ(mixed.warnings.size(), 2u) << all(mixed.warnings);
  // All 16 units: instances of GPUs 0-2, then GPUs 3-7.
  EXPECT_EQ(pick(inv, "").devices.size(), 16u);
}

TEST(SelectPartitions, LegacyMigNamesOnlyBeforeDriver470) {
  Inventory inv = mig();
  for (auto& d : inv.devices) d.driver->version = "460.106.00";
  auto s = pick(inv, "devices: [1:2]\n");
  // GI and CI from the capability paths: gpu1/gi2/ci1 (cap minors 156 and 158).
  EXPECT_EQ(env(s, "CUDA_VISIBLE_DEVICES"), "MIG-" + *inv.devices[1].uuid + "/2/1");
  EXPECT_TRUE(pick(inv, "devices: [\"MIG-" + *inv.devices[1].uuid + "/2/1\"]\n").partition_of(0));
  inv.devices[1].uuid.reset();
  auto unknown = run(inv, "devices: [1:2]\n");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("names a MIG instance MIG-GPU-<gpu uuid>/<gi>/<ci>, and "
                                         "the GPU's UUID is unknown"),
            std::string::npos)
      << unknown.error().message;
}

TEST(SelectPartitions, HeldUnitsAndTheirDevicesAreNotChosen) {
  SelectInputs in;
  in.unavailable["0000:05:00.0/1"] = "locked by pid 1";
  auto s = pick(cpx(), "devices: 2\n", in);
  EXPECT_EQ(env(s, "ANYGPU_DEVICES"), "0000:05:00.0/0,0000:05:00.0/2");
  // A device held whole holds its partitions.
  in.unavailable["0000:05:00.0"] = "locked by pid 2";
  EXPECT_EQ(env(pick(cpx(), "devices: 2\n", in), "ANYGPU_DEVICES"),
            "0000:27:00.0/0,0000:27:00.0/1");
  auto listed = run(cpx(), "devices: [0:3]\n", in);
  ASSERT_FALSE(listed);
  EXPECT_NE(listed.error().message.find("locked by pid 2"), std::string::npos);
  // A device one of whose partitions is held is not free as a whole.
  SelectInputs whole;
  whole.unavailable["0000:18:00.0/0"] = "locked by pid 3";
  auto h100 = pick(test::fixture_inventory("h100-8x"), "devices: [0]\n", {});
  EXPECT_EQ(h100.devices.size(), 1u);
  auto held = run(test::fixture_inventory("h100-8x"), "devices: [0]\n", whole);
  ASSERT_FALSE(held);
  EXPECT_NE(held.error().message.find("locked by pid 3"), std::string::npos);
}

TEST(SelectPartitions, TheCallersVisibleDevicesNameLogicalIdsOnACpxHost) {
  SelectInputs in;
  in.caller_env["HIP_VISIBLE_DEVICES"] = "9,8";
  auto s = pick(cpx(), "", in);
  EXPECT_EQ(env(s, "ANYGPU_DEVICES"), "0000:27:00.0/0,0000:27:00.0/1");
  EXPECT_EQ(env(s, "HIP_VISIBLE_DEVICES"), "8,9");
  in.caller_env["HIP_VISIBLE_DEVICES"] = "63";
  EXPECT_FALSE(run(cpx(), "", in));
  SelectInputs by_uuid;
  by_uuid.caller_env["CUDA_VISIBLE_DEVICES"] = mig_uuid(2, 0);
  auto m = pick(mig_with_uuids(), "", by_uuid);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.partition_of(0)->id, mig_uuid(2, 0));
}

TEST(SelectPartitions, TheDevicesOptionCountsAndNamesUnits) {
  AcceleratorConfig c = config("devices: [0]\n");
  ASSERT_TRUE(apply_devices_option(c, "3"));
  EXPECT_EQ(c.count, 3);
  EXPECT_TRUE(c.list.empty());
  EXPECT_EQ(pick_with(cpx(), c).devices.size(), 3u);
  ASSERT_TRUE(apply_devices_option(c, "7:6, 0000:27:00.0/3"));
  EXPECT_FALSE(c.count);
  auto s = pick_with(cpx(), c);
  EXPECT_EQ(env(s, "HIP_VISIBLE_DEVICES"), "11,62");
  ASSERT_TRUE(apply_devices_option(c, "4,"));
  ASSERT_EQ(c.list.size(), 1u);
  EXPECT_EQ(c.list[0].index, 4);
  ASSERT_TRUE(apply_devices_option(c, "all"));
  EXPECT_TRUE(c.list.empty() && !c.count);
  for (auto bad : {"0", "0:x", ",", "1:2,1:2", "MIG-a b"}) {
    auto r = apply_devices_option(c, bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_TRUE(r.error().message.starts_with("--devices")) << r.error().message;
  }
}

}  // namespace anygpu
