// The launch planner against the fixture hosts: exact container arguments per vendor, the
// renumbered variable, least-privilege flags, argv untouched, the JSON plan.
#include <gtest/gtest.h>

#include <algorithm>

#include "launch/container_plan.h"
#include "launch/plan.h"
#include "launch/plan_json.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "test_support.h"

namespace anygpu {
namespace {

Selection select_on(const std::string& host, const std::string& config_text) {
  auto cfg = parse_accelerator_config(config_text, "accelerator-config.yaml");
  EXPECT_TRUE(cfg.ok()) << (cfg.ok() ? "" : cfg.error().message);
  auto sel = select_devices(test::fixture_inventory(host), *cfg, {});
  EXPECT_TRUE(sel.ok()) << (sel.ok() ? "" : sel.error().message);
  return *sel;
}

// Facts as gather_host_facts would find them for the fixture: the container edits of the
// selection on the fixture tree, the given group ids (fixtures carry no /etc/group), podman on
// PATH.
HostFacts facts_for(const std::string& host, const Selection& sel,
                    std::map<std::string, int> groups = {{"video", 44}, {"render", 993}}) {
  HostFacts f;
  f.root_prefix = test::fixture_host(host);
  if (!sel.devices.empty()) {
    auto edits =
        container_edits(HostRoot(HostOptions{f.root_prefix, false, {}}), sel.vendor, sel.devices);
    EXPECT_TRUE(edits) << edits.error().message;
    f.edits = std::move(*edits);
    for (auto g : Registry::builtin().vendor(sel.vendor)->container.groups)
      if (auto it = groups.find(std::string(g)); it != groups.end())
        f.edits.common.add_gid(static_cast<uint32_t>(it->second));
  }
  f.engines_on_path = {"podman", "docker"};
  f.cwd = "/home/u/exp";
  return f;
}

LaunchOptions container_options(std::vector<std::string> command = {"python", "train.py"}) {
  LaunchOptions o;
  o.image = "localhost/exp:1";
  o.command = std::move(command);
  return o;
}

std::vector<std::string> values_of(const std::vector<std::string>& argv, const std::string& flag) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == flag) out.push_back(argv[i + 1]);
  return out;
}

std::vector<std::string> tail_after_image(const LaunchPlan& p, const std::string& image) {
  auto it = std::find(p.argv.begin(), p.argv.end(), image);
  if (it == p.argv.end()) return {};
  return {it + 1, p.argv.end()};
}

void expect_least_privilege(const LaunchPlan& p) {
  const auto& a = p.argv;
  EXPECT_EQ(a[1], "run");
  EXPECT_EQ(values_of(a, "--cap-drop"), std::vector<std::string>{"ALL"});
  EXPECT_EQ(values_of(a, "--security-opt"), std::vector<std::string>{"no-new-privileges"});
  EXPECT_EQ(values_of(a, "--user"), std::vector<std::string>{"1001:1001"});
  EXPECT_EQ(values_of(a, "--shm-size"), std::vector<std::string>{"8g"});
  EXPECT_EQ(values_of(a, "-w"), std::vector<std::string>{"/workspace"});
  EXPECT_NE(std::find(a.begin(), a.end(), "--rm"), a.end());
  for (const auto& arg : a) EXPECT_EQ(arg.find("--privileged"), std::string::npos) << arg;
  auto env = values_of(a, "-e");
  EXPECT_NE(std::find(env.begin(), env.end(), "PYTHONUNBUFFERED=1"), env.end());
}

TEST(LaunchContainer, NvidiaTwoOfEightPassesOnlyTheirNodes) {
  auto sel = select_on("h100-8x", "devices: [0, 3]\n");
  auto facts = facts_for("h100-8x", sel);
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  expect_least_privilege(*plan);
  const auto& root = facts.root_prefix;
  // Each GPU's own nodes: /dev/nvidiaN and its DRM nodes (EGL and Vulkan open them, as
  // nvidia-ctk's spec gives them); the host's video and render gids open those.
  EXPECT_EQ(
      values_of(plan->argv, "--device"),
      (std::vector<std::string>{
          root + "/dev/nvidia0:/dev/nvidia0", root + "/dev/dri/card1:/dev/dri/card1",
          root + "/dev/dri/renderD128:/dev/dri/renderD128", root + "/dev/nvidia3:/dev/nvidia3",
          root + "/dev/dri/card4:/dev/dri/card4", root + "/dev/dri/renderD131:/dev/dri/renderD131",
          root + "/dev/nvidiactl:/dev/nvidiactl", root + "/dev/nvidia-uvm:/dev/nvidia-uvm",
          root + "/dev/nvidia-uvm-tools:/dev/nvidia-uvm-tools"}));
  EXPECT_EQ(values_of(plan->argv, "--group-add"), (std::vector<std::string>{"44", "993"}));
  auto env = values_of(plan->argv, "-e");
  EXPECT_NE(std::find(env.begin(), env.end(), "CUDA_VISIBLE_DEVICES=0,1"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "NVIDIA_VISIBLE_DEVICES=void"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "ANYGPU_DIST_BACKEND=nccl"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "CUDA_DEVICE_ORDER=PCI_BUS_ID"), env.end());
  EXPECT_TRUE(values_of(plan->argv, "-v").empty());
  EXPECT_EQ(values_of(plan->argv, "--mount"),
            std::vector<std::string>{"type=bind,src=/home/u/exp,dst=/workspace"});
  EXPECT_EQ(plan->engine, "podman");
  ASSERT_EQ(plan->devices.size(), 2u);
  EXPECT_EQ(plan->devices[1].index, 3);
  EXPECT_EQ(plan->devices[1].nodes,
            (std::vector<std::string>{"/dev/nvidia3", "/dev/dri/card4", "/dev/dri/renderD131"}));
}

TEST(LaunchContainer, AmdKfdRenderNodesAndHostGroupIds) {
  auto sel = select_on("mi300x-8x", "devices: [1, 2]\n");
  auto facts = facts_for("mi300x-8x", sel);
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  expect_least_privilege(*plan);
  const auto& root = facts.root_prefix;
  auto r1 = *sel.devices[0].render_node, r2 = *sel.devices[1].render_node;
  EXPECT_EQ(values_of(plan->argv, "--device"),
            (std::vector<std::string>{root + r1 + ":" + r1, root + r2 + ":" + r2,
                                      root + "/dev/kfd:/dev/kfd"}));
  EXPECT_EQ(values_of(plan->argv, "--group-add"), (std::vector<std::string>{"44", "993"}));
  auto env = values_of(plan->argv, "-e");
  EXPECT_NE(std::find(env.begin(), env.end(), "HIP_VISIBLE_DEVICES=0,1"), env.end());
  for (const auto& e : env) EXPECT_FALSE(e.starts_with("ROCR_VISIBLE_DEVICES")) << e;
}

TEST(LaunchContainer, HygonLikeRocmWithItsExtraNode) {
  auto sel = select_on("hygon-dcu", "devices: [1]\n");
  auto facts = facts_for("hygon-dcu", sel, {{"video", 39}});
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const auto& root = facts.root_prefix;
  auto r = *sel.devices[0].render_node;
  EXPECT_EQ(values_of(plan->argv, "--device"),
            (std::vector<std::string>{root + r + ":" + r, root + "/dev/kfd:/dev/kfd",
                                      root + "/dev/mkfd:/dev/mkfd"}));
  // render is absent from this host's groups: only video is added.
  EXPECT_EQ(values_of(plan->argv, "--group-add"), std::vector<std::string>{"39"});
}

TEST(LaunchContainer, IntelRenderAndCardNodes) {
  auto sel = select_on("intel-max-arc", "devices: [0]\n");
  auto facts = facts_for("intel-max-arc", sel);
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const auto& root = facts.root_prefix;
  std::vector<std::string> want;
  for (const auto& n : sel.devices[0].device_nodes) want.push_back(root + n + ":" + n);
  ASSERT_EQ(want.size(), 2u);
  EXPECT_EQ(values_of(plan->argv, "--device"), want);
  EXPECT_EQ(values_of(plan->argv, "--group-add"), (std::vector<std::string>{"44", "993"}));
  auto env = values_of(plan->argv, "-e");
  EXPECT_NE(std::find(env.begin(), env.end(), "ZE_AFFINITY_MASK=0"), env.end());
}

// A tile reaches the container with its whole card (it has no node of its own): inside, Level
// Zero's flat numbers count that card's two tiles from 0.
TEST(LaunchContainer, IntelTileNumberedAmongItsCardsTiles) {
  auto env_of = [](const std::string& config) {
    auto sel = select_on("intel-max-arc", config);
    auto facts = facts_for("intel-max-arc", sel);
    auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
    EXPECT_TRUE(plan.ok()) << plan.error().message;
    return plan.ok() ? values_of(plan->argv, "-e") : std::vector<std::string>{};
  };
  auto has = [](const std::vector<std::string>& env, const std::string& v) {
    return std::find(env.begin(), env.end(), v) != env.end();
  };
  auto one = env_of("devices: [\"0000:9a:00.0/1\"]\n");  // 4 on the host
  EXPECT_TRUE(has(one, "ZE_AFFINITY_MASK=1"));
  EXPECT_TRUE(has(one, "ZE_FLAT_DEVICE_HIERARCHY=FLAT"));
  auto mixed = env_of("devices: [0, \"0000:29:00.0/1\", \"0000:9a:00.0/0\"]\n");
  EXPECT_TRUE(has(mixed, "ZE_AFFINITY_MASK=0,2,3"));  // Arc 0, card 29 is 1-2, card 9a 3-4
}

TEST(LaunchContainer, AscendNodesAndReadOnlyDriverMounts) {
  auto sel = select_on("ascend-910b-8x", "devices: [0, 1]\n");
  auto facts = facts_for("ascend-910b-8x", sel);
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  expect_least_privilege(*plan);
  const auto& root = facts.root_prefix;
  // Physical ids, not PCI order: index 0 is /dev/davinci4 on this host.
  EXPECT_EQ(values_of(plan->argv, "--device"),
            (std::vector<std::string>{
                root + "/dev/davinci4:/dev/davinci4", root + "/dev/davinci5:/dev/davinci5",
                root + "/dev/davinci_manager:/dev/davinci_manager",
                root + "/dev/devmm_svm:/dev/devmm_svm", root + "/dev/hisi_hdc:/dev/hisi_hdc"}));
  auto mounts = values_of(plan->argv, "--mount");
  EXPECT_NE(std::find(mounts.begin(), mounts.end(),
                      "type=bind,src=" + root +
                          "/usr/local/Ascend/driver,dst=/usr/local/Ascend/driver,ro"),
            mounts.end());
  auto env = values_of(plan->argv, "-e");
  EXPECT_NE(std::find(env.begin(), env.end(), "ASCEND_RT_VISIBLE_DEVICES=0,1"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "ANYGPU_DIST_BACKEND=hccl"), env.end());
}

TEST(LaunchContainer, CpuHostPassesNoDevice) {
  auto sel = select_on("cloud-vm-none", "");
  auto facts = facts_for("cloud-vm-none", sel);
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  expect_least_privilege(*plan);
  EXPECT_TRUE(values_of(plan->argv, "--device").empty());
  EXPECT_TRUE(values_of(plan->argv, "--group-add").empty());
  auto env = values_of(plan->argv, "-e");
  EXPECT_NE(std::find(env.begin(), env.end(), "ANYGPU_VENDOR=cpu"), env.end());
}

TEST(LaunchContainer, CdiNamesReplaceNodesWhenASpecCoversTheDevices) {
  auto sel = select_on("h100-8x", "devices: [0, 3]\n");
  auto facts = facts_for("h100-8x", sel);
  facts.cdi_names = std::vector<std::string>{"nvidia.com/gpu=0", "nvidia.com/gpu=3"};
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(values_of(plan->argv, "--device"),
            (std::vector<std::string>{"nvidia.com/gpu=0", "nvidia.com/gpu=3"}));
}

TEST(LaunchContainer, MissingNodesAreNotPassed) {
  auto sel = select_on("h100-8x", "devices: [0]\n");
  auto facts = facts_for("h100-8x", sel);
  std::erase_if(facts.edits.common.device_nodes,
                [](const NodeEdit& n) { return n.path == "/dev/nvidia-uvm-tools"; });
  auto plan = plan_launch(sel, container_options(), facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok());
  for (const auto& d : values_of(plan->argv, "--device"))
    EXPECT_EQ(d.find("nvidia-uvm-tools"), std::string::npos) << d;
}

TEST(LaunchContainer, OptionsEngineArgsAndArgvOrder) {
  auto sel = select_on("cloud-vm-none", "");
  auto facts = facts_for("cloud-vm-none", sel);
  std::vector<std::string> tricky = {"printf", "%s\n", "a b",   "'q'", "\"dq\"", ";", "$(id)",
                                     "*",      "",     "[1,2]", "{}",  "--x=1",  "-v"};
  auto o = container_options(tricky);
  o.engine = "docker";
  o.engine_args = {"--network=none", "--label=x"};
  o.user = "2000:2000";
  o.shm_size = "1g";
  o.read_only = true;
  auto plan = plan_launch(sel, o, facts, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->argv.front(), "docker");
  EXPECT_EQ(tail_after_image(*plan, "localhost/exp:1"), tricky);
  auto image = std::find(plan->argv.begin(), plan->argv.end(), "localhost/exp:1");
  EXPECT_EQ(*(image - 2), "--network=none");
  EXPECT_EQ(*(image - 1), "--label=x");
  EXPECT_EQ(values_of(plan->argv, "--user"), std::vector<std::string>{"2000:2000"});
  EXPECT_EQ(values_of(plan->argv, "--shm-size"), std::vector<std::string>{"1g"});
  EXPECT_NE(std::find(plan->argv.begin(), plan->argv.end(), "--read-only"), plan->argv.end());
  EXPECT_EQ(values_of(plan->argv, "--tmpfs"), std::vector<std::string>{"/tmp"});
}

TEST(LaunchContainer, EngineChoice) {
  LaunchOptions o = container_options();
  HostFacts f;
  f.engines_on_path = {"docker"};
  EXPECT_EQ(*choose_engine(o, f), "docker");
  f.engines_on_path = {"podman", "docker"};
  EXPECT_EQ(*choose_engine(o, f), "podman");
  f.engines_on_path = {};
  EXPECT_FALSE(choose_engine(o, f).ok());
  o.engine = "lxc";
  auto bad = choose_engine(o, f);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown container engine 'lxc'"), std::string::npos);
}

TEST(LaunchNative, EnvironmentAndArgvUntouched) {
  auto sel = select_on("h100-8x", "devices: [2, 5]\n");
  LaunchOptions o;
  o.command = {"./train", "a b", "$(x)", ""};
  auto plan = plan_launch(sel, o, {}, {}, std::nullopt);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->mode, "native");
  EXPECT_EQ(plan->argv, o.command);
  EXPECT_FALSE(plan->engine);
  auto has = [&](const std::string& k, const std::string& v) {
    return std::find(plan->env.begin(), plan->env.end(), EnvVar{k, v}) != plan->env.end();
  };
  EXPECT_TRUE(has("CUDA_VISIBLE_DEVICES", "2,5"));  // host indices natively
  EXPECT_TRUE(has("ANYGPU_VENDOR", "nvidia"));
}

TEST(LaunchNative, RocrFromTheCallerIsUnsetWhenHipIsSet) {
  auto sel = select_on("mi300x-8x", "devices: [0]\n");
  LaunchOptions o;
  o.command = {"true"};
  auto plan = plan_launch(sel, o, {}, {{"ROCR_VISIBLE_DEVICES", "3"}}, std::nullopt);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->unset_env, std::vector<std::string>{"ROCR_VISIBLE_DEVICES"});
}

TEST(LaunchNative, MissingCommandIsAClearError) {
  auto sel = select_on("cloud-vm-none", "");
  auto plan = plan_launch(sel, LaunchOptions{}, {}, {}, std::nullopt);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("no command"), std::string::npos);
}

TEST(LaunchJson, PlanDocument) {
  auto sel = select_on("h100-8x", "devices: [0, 3]\n");
  auto plan = plan_launch(sel, container_options(), facts_for("h100-8x", sel), {}, std::nullopt);
  ASSERT_TRUE(plan.ok());
  auto j = plan_to_json(*plan);
  EXPECT_EQ(j["schema"], "anygpu.plan/v1");
  EXPECT_EQ(j["engine"], "podman");
  EXPECT_EQ(j["argv"][0], "podman");
  EXPECT_TRUE(j["env"].is_object());
  ASSERT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][1]["bus_id"], sel.devices[1].pci.address.str());
  EXPECT_EQ(j["devices"][1]["nodes"][0], "/dev/nvidia3");

  LaunchOptions native;
  native.command = {"true"};
  auto n = plan_launch(sel, native, {}, {}, std::nullopt);
  auto nj = plan_to_json(*n);
  EXPECT_TRUE(nj["engine"].is_null());
  EXPECT_EQ(nj["env"]["CUDA_VISIBLE_DEVICES"], "0,3");
}

}  // namespace
}  // namespace anygpu
