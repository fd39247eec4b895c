// Partitions in what anygpu writes for container runtimes and schedulers: one CDI device per
// partition with exactly its nodes (MIG cap nodes by number), one gres.conf line per partition,
// node labels counting partitions. Fixtures: h100-8x-mig (MIG on GPUs 0-2, facts §1.1) and
// mi300x-8x-cpx (the real ROCm/k8s-device-plugin capture, one GPU showing 7 of 8 partitions).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "cdi/cdi.h"
#include "cluster/gres.h"
#include "cluster/k8s.h"
#include "test_support.h"
#include "util/diagnostics.h"

namespace anygpu {

namespace {

HostRoot root_at(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  return HostRoot(o);
}

std::string spec_for(const std::string& root, const Inventory& inv, const std::string& vendor,
                     Diagnostics* diagnostics = nullptr) {
  auto spec = generate_cdi_spec(root_at(root), inv, vendor,
                                {.host_view = true, .diagnostics = diagnostics});
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : std::string();
}

// A Null node (not a map) when there is none.
YAML::Node device_named(const YAML::Node& doc, const std::string& name) {
  for (const auto& d : doc["devices"])
    if (d["name"].Scalar() == name) return d;
  return YAML::Node();
}

std::vector<std::string> names(const YAML::Node& doc) {
  std::vector<std::string> out;
  for (const auto& d : doc["devices"]) out.push_back(d["name"].Scalar());
  return out;
}

std::vector<std::string> paths(const YAML::Node& device) {
  std::vector<std::string> out;
  for (const auto& n : device["containerEdits"]["deviceNodes"]) out.push_back(n["path"].Scalar());
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

TEST(PartitionCdi, MigInstancesReplaceTheirParentAndCarryTheirNodeNumbers) {
  auto text =
      spec_for(test::fixture_host("h100-8x-mig"), test::fixture_inventory("h100-8x-mig"), "nvidia");
  auto doc = YAML::Load(text);
  auto all = names(doc);
  // 7 + 3 + 1 instances on GPUs 0-2; GPUs 3-7 whole (index, bus id); and "all".
  for (const auto* name : {"0:0", "0:6", "1:0", "1:2", "2:0", "3", "0000:5d:00.0", "7", "all"})
    EXPECT_TRUE(has(all, name)) << name << "\n" << text;
  for (const auto* name : {"0", "1", "2", "0000:18:00.0", "0:7", "2:1"})
    EXPECT_FALSE(has(all, name)) << name;
  EXPECT_EQ(all.size(), 11u + 5 * 3 + 1);  // a whole GPU: index, bus id, uuid

  auto inst = device_named(doc, "1:2");  // GPU 1, GI 2, CI 1
  ASSERT_TRUE(inst.IsMap());
  EXPECT_EQ(paths(inst), (std::vector<std::string>{"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap156",
                                                   "/dev/nvidia-caps/nvidia-cap158"}));
  const auto& nodes = inst["containerEdits"]["deviceNodes"];
  // 195: nvidia-frontend, 235: nvidia-caps in the fixture's /proc/devices.
  EXPECT_EQ(nodes[0]["major"].as<int>(), 195);
  EXPECT_EQ(nodes[0]["minor"].as<int>(), 1);
  EXPECT_EQ(nodes[2]["type"].Scalar(), "c");
  EXPECT_EQ(nodes[2]["major"].as<int>(), 235);
  EXPECT_EQ(nodes[2]["minor"].as<int>(), 158);
  // A whole GPU keeps today's entry: nodes by path, no numbers.
  auto whole = device_named(doc, "3");
  ASSERT_TRUE(whole.IsMap());
  EXPECT_FALSE(whole["containerEdits"]["deviceNodes"][0]["major"]);
  // "all" holds every instance's caps and each parent once.
  auto everything = paths(device_named(doc, "all"));
  EXPECT_EQ(std::count(everything.begin(), everything.end(), "/dev/nvidia0"), 1);
  EXPECT_TRUE(has(everything, "/dev/nvidia-caps/nvidia-cap292"));
  EXPECT_NE(text.find("<device index>:<partition index> for a partition"), std::string::npos);
}

TEST(PartitionCdi, CapNodesTheHostHasNotMadeAreGivenByNumberOrLeftOutWithAWarning) {
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x-mig"), root);
  std::filesystem::remove_all(root + "/dev/nvidia-caps");
  // With the major in /proc/devices the runtime can make the nodes: the spec is unchanged.
  Diagnostics quiet;
  auto by_number = YAML::Load(spec_for(root, test::probe_root(root), "nvidia", &quiet));
  EXPECT_EQ(paths(device_named(by_number, "0:0")).size(), 3u);
  for (const auto& w : quiet.warnings()) EXPECT_EQ(w.find("partition"), std::string::npos) << w;
  // Without it nothing can make them: each MIG instance is left out, by name, with its nodes.
  test::write_file(root + "/proc/devices", "Character devices:\n195 nvidia-frontend\n");
  Diagnostics diag;
  auto inv = test::probe_root(root);
  auto doc = YAML::Load(spec_for(root, inv, "nvidia", &diag));
  EXPECT_FALSE(device_named(doc, "0:0").IsMap());
  EXPECT_TRUE(device_named(doc, "3").IsMap());
  bool named = false;
  for (const auto& w : diag.warnings())
    named = named || (w.find("partition 0000:2a:00.0/2: /dev/nvidia-caps/nvidia-cap156") !=
                          std::string::npos &&
                      w.find("numbers unknown") != std::string::npos);
  EXPECT_TRUE(named);
  // Discovery said why first: the cap nodes' major is missing.
  bool said = false;
  for (const auto& w : inv.diagnostics.warnings())
    said = said || w.find("nvidia-caps") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(PartitionCdi, AmdComputePartitionsGetTheirOwnRenderNodeOnly) {
  auto doc = YAML::Load(spec_for(test::fixture_host("mi300x-8x-cpx"),
                                 test::fixture_inventory("mi300x-8x-cpx"), "amd"));
  auto all = names(doc);
  EXPECT_EQ(all.size(), 63u + 1);  // 7 GPUs × 8 partitions, one GPU's 7, and "all"
  EXPECT_FALSE(has(all, "0"));
  EXPECT_EQ(paths(device_named(doc, "0:3")), (std::vector<std::string>{"/dev/dri/renderD131"}));
  EXPECT_EQ(paths(device_named(doc, "all")).size(), 63u);
  EXPECT_EQ(doc["containerEdits"]["deviceNodes"][0]["path"].Scalar(), "/dev/kfd");
}

TEST(PartitionGres, OneLinePerPartition) {
  auto mig = gres_lines(test::fixture_inventory("h100-8x-mig"), nullptr);
  ASSERT_EQ(mig.size(), 11u + 5);
  EXPECT_EQ(mig[9].type, "h100_mig");  // GPU 1, instance 2: no profile without NVML
  EXPECT_EQ(mig[9].files,
            (std::vector<std::string>{"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap156",
                                      "/dev/nvidia-caps/nvidia-cap158"}));
  ASSERT_NE(mig[9].partition, nullptr);
  EXPECT_EQ(mig[9].partition->id, "0000:2a:00.0/2");
  EXPECT_EQ(mig[11].type, "h100");
  EXPECT_EQ(mig[11].file, "/dev/nvidia3");
  auto conf = gres_conf(mig, "n1", {});
  EXPECT_NE(conf.find("Name=gpu Type=h100_mig MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/"
                      "nvidia-cap66,/dev/nvidia-caps/nvidia-cap67 Flags=nvidia_gpu_env\n"),
            std::string::npos)
      << conf;
  EXPECT_NE(conf.find("Gres=gpu:h100_mig:11,gpu:h100:5"), std::string::npos) << conf;

  auto amd = gres_lines(test::fixture_inventory("mi300x-8x-cpx"), nullptr);
  ASSERT_EQ(amd.size(), 63u);
  EXPECT_EQ(amd[3].file, "/dev/dri/renderD131");
  EXPECT_EQ(amd[3].type, "mi300x");
  EXPECT_TRUE(amd[3].files.empty());
}

TEST(PartitionGres, AProfileBecomesTheType) {
  auto inv = test::fixture_inventory("h100-8x-mig");
  inv.devices[0].partitions[0].profile = "1g.10gb";
  inv.devices[0].partitions[1].profile = "3g.40gb+me";
  auto lines = gres_lines(inv, nullptr);
  EXPECT_EQ(lines[0].type, "h100_1g.10gb");
  EXPECT_EQ(lines[1].type, "h100_3g.40gbme");  // '+' is not a Type character
  EXPECT_EQ(lines[2].type, "h100_mig");
}

// A node whose devices are in different modes says "mixed" and how many partitions each mode
// offers; a profile of a mode other than MIG (an Ascend vNPU template) is counted under its
// vendor and mode.
TEST(PartitionLabels, CountsPerModeAndProfile) {
  Labels labels;
  auto value = [&](const std::string& key) {
    for (const auto& [k, v] : labels)
      if (k == key) return v;
    return std::string("(absent)");
  };
  auto amd = test::fixture_inventory("mi300x-8x-cpx");
  labels = node_labels(amd, "anygpu.io");
  EXPECT_EQ(value("anygpu.io/amd.partitions.CPX-NPS4"), "63");
  ASSERT_TRUE(amd.devices[0].partitioning);
  int first = static_cast<int>(amd.devices[0].partitions.size());
  amd.devices[0].partitioning->mode = "DPX";
  amd.devices[0].partitioning->memory_mode = "NPS1";
  labels = node_labels(amd, "anygpu.io");
  EXPECT_EQ(value("anygpu.io/amd.partition-mode"), "mixed");
  EXPECT_EQ(value("anygpu.io/amd.partitions"), "63");
  EXPECT_EQ(value("anygpu.io/amd.partitions.DPX-NPS1"), std::to_string(first));
  EXPECT_EQ(value("anygpu.io/amd.partitions.CPX-NPS4"), std::to_string(63 - first));

  auto npu = test::fixture_inventory("ascend-910b-vnpu");
  int vnpus = 0;
  for (const auto& d : npu.devices) vnpus += static_cast<int>(d.partitions.size());
  ASSERT_GT(vnpus, 1);
  labels = node_labels(npu, "anygpu.io");
  EXPECT_EQ(value("anygpu.io/ascend.partition-mode"), "vnpu");
  EXPECT_EQ(value("anygpu.io/ascend.partitions.vnpu"), std::to_string(vnpus));
  for (const auto& [k, v] : labels)  // templates unread: no profile count
    EXPECT_EQ(k.find("vnpu-"), std::string::npos) << k;
  for (auto& d : npu.devices)
    for (auto& p : d.partitions) p.profile = "vir04";
  for (auto& d : npu.devices)
    if (!d.partitions.empty()) {
      d.partitions.front().profile = "vir02";
      break;
    }
  labels = node_labels(npu, "anygpu.io");
  EXPECT_EQ(value("anygpu.io/ascend.vnpu-vir02.count"), "1");
  EXPECT_EQ(value("anygpu.io/ascend.vnpu-vir04.count"), std::to_string(vnpus - 1));
}

TEST(PartitionLabels, CountsAndModePerVendor) {
  auto labels = node_labels(test::fixture_inventory("mi300x-8x-cpx"), "anygpu.io");
  auto value = [&](const std::string& key) {
    for (const auto& [k, v] : labels)
      if (k == key) return v;
    return std::string("(absent)");
  };
  EXPECT_EQ(value("anygpu.io/count"), "8");
  EXPECT_EQ(value("anygpu.io/amd.partitions"), "63");
  EXPECT_EQ(value("anygpu.io/amd.partition-mode"), "CPX-NPS4");

  auto inv = test::fixture_inventory("h100-8x-mig");
  inv.devices[0].partitions[0].profile = "1g.10gb";
  inv.devices[1].partitions[0].profile = "1g.10gb";
  labels = node_labels(inv, "anygpu.io");
  EXPECT_EQ(value("anygpu.io/nvidia.partitions"), "11");
  EXPECT_EQ(value("anygpu.io/nvidia.partition-mode"), "mig");
  EXPECT_EQ(value("anygpu.io/mig-1g.10gb.count"), "2");
  // Per mode as well, and a partition whose profile was not read is in no profile count.
  EXPECT_EQ(value("anygpu.io/nvidia.partitions.mig"), "11");
  EXPECT_EQ(value("anygpu.io/mig-h100_mig.count"), "(absent)");
  // A host without partitions gets none of these labels.
  for (const auto& [k, v] : node_labels(test::fixture_inventory("h100-8x"), "anygpu.io"))
    EXPECT_EQ(k.find("partition"), std::string::npos) << k;
}

}  // namespace anygpu
