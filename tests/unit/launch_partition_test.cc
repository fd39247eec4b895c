// `run --container` on partitioned hosts: the container is handed exactly the selected
// partitions' nodes (MIG: the parent /dev/nvidiaN and the GI and CI cap nodes; AMD CPX: the
// partition's render node and /dev/kfd), never another partition's, read back from the engine
// argv the plan renders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "container/container_edits.h"
#include "launch/plan.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

HostRoot host_at(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  return HostRoot(o);
}

struct Planned {
  std::set<std::string> nodes;  // container paths of every --device
  std::map<std::string, std::string> env;
  LaunchPlan plan;
};

Planned plan_on(const std::string& fixture, const Inventory& inv, const std::string& config) {
  Planned out;
  auto c = parse_accelerator_config(config, "accelerator-config.yaml");
  EXPECT_TRUE(c) << c.error().message;
  auto sel = select_devices(inv, *c, {});
  EXPECT_TRUE(sel) << sel.error().message;
  if (!sel) return out;
  auto root = test::fixture_host(fixture);
  HostFacts facts;
  facts.root_prefix = root;
  facts.engines_on_path = {"podman"};
  facts.cwd = "/home/u/exp";
  auto edits = container_edits(host_at(root), sel->vendor, sel->devices);
  EXPECT_TRUE(edits) << edits.error().message;
  facts.edits = std::move(*edits);
  LaunchOptions o;
  o.image = "localhost/exp:1";
  o.command = {"python", "train.py"};
  auto plan = plan_launch(*sel, o, facts, {}, std::nullopt);
  EXPECT_TRUE(plan) << plan.error().message;
  if (!plan) return out;
  const auto& a = plan->argv;
  for (size_t i = 0; i + 1 < a.size() && a[i] != *o.image; ++i) {
    if (a[i] == "--device") out.nodes.insert(a[i + 1].substr(a[i + 1].rfind(':') + 1));
    if (a[i] == "-e") {
      auto eq = a[i + 1].find('=');
      out.env[a[i + 1].substr(0, eq)] = a[i + 1].substr(eq + 1);
    }
  }
  out.plan = std::move(*plan);
  return out;
}

}  // namespace

TEST(LaunchPartitions, AnAmdPartitionGetsItsRenderNodeAndKfdOnly) {
  auto p =
      plan_on("mi300x-8x-cpx", test::fixture_inventory("mi300x-8x-cpx"), "devices: [1:3, 7:6]\n");
  EXPECT_EQ(p.nodes,
            (std::set<std::string>{"/dev/dri/renderD139", "/dev/dri/renderD190", "/dev/kfd"}));
  // Inside only these two exist: ROCr numbers them from 0.
  EXPECT_EQ(p.env["HIP_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(p.env["ANYGPU_DEVICES"], "0000:27:00.0/3,0000:e5:00.0/6");
  ASSERT_EQ(p.plan.devices.size(), 2u);
  ASSERT_TRUE(p.plan.devices[0].partition);
  EXPECT_EQ(p.plan.devices[0].partition->id, "0000:27:00.0/3");
  EXPECT_EQ(p.plan.devices[0].nodes, (std::vector<std::string>{"/dev/dri/renderD139"}));
}

TEST(LaunchPartitions, AMigInstanceGetsItsParentAndItsTwoCapNodes) {
  Inventory inv = test::fixture_inventory("h100-8x-mig");
  for (auto& d : inv.devices)
    for (auto& part : d.partitions) {
      part.uuid = cat({"MIG-", std::to_string(d.index), "-", std::to_string(part.index)});
      part.id = *part.uuid;
    }
  auto p = plan_on("h100-8x-mig", inv, "devices: [1:2]\n");
  // gpu1/gi2/ci1: cap minors 3 + 135 + 18 = 156 and 158 (F-2). Siblings 1:0 (147, 148) and
  // 1:1 (156, 157) are not handed over, nor /dev/nvidia1's DRM nodes.
  std::set<std::string> want = {"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap156",
                                "/dev/nvidia-caps/nvidia-cap158"};
  for (const auto& n : p.nodes) {
    bool per_device =
        n.starts_with("/dev/nvidia-caps/") || n.starts_with("/dev/dri/") ||
        (n.starts_with("/dev/nvidia") && std::isdigit(static_cast<unsigned char>(n.back())));
    EXPECT_TRUE(!per_device || want.count(n)) << n;
  }
  for (const auto& n : want) EXPECT_TRUE(p.nodes.count(n)) << n;
  EXPECT_TRUE(p.nodes.count("/dev/nvidiactl"));
  // CUDA takes the instance by UUID, inside as outside.
  EXPECT_EQ(p.env["CUDA_VISIBLE_DEVICES"], "MIG-1-2");
}

}  // namespace anygpu
