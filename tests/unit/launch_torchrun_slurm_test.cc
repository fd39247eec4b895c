// torchrun argv, --nproc-per-node, and the Slurm mapping (synthesized allocations).
#include <gtest/gtest.h>

#include <algorithm>

#include "cluster/slurm_env.h"
#include "launch/plan.h"
#include "launch/slurm_map.h"
#include "launch/torchrun_plan.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "test_support.h"

namespace anygpu {
namespace {

Selection select_on(const std::string& host, const std::string& config_text,
                    std::optional<int> nproc = std::nullopt) {
  auto cfg = parse_accelerator_config(config_text, "accelerator-config.yaml");
  EXPECT_TRUE(cfg.ok());
  SelectInputs in;
  in.processes_per_node = nproc;
  return *select_devices(test::fixture_inventory(host), *cfg, in);
}

bool has_env(const LaunchPlan& p, const std::string& k, const std::string& v) {
  return std::find(p.env.begin(), p.env.end(), EnvVar{k, v}) != p.env.end();
}
bool sets(const LaunchPlan& p, const std::string& k) {
  return std::any_of(p.env.begin(), p.env.end(), [&](const EnvVar& e) { return e.first == k; });
}

TEST(LaunchNproc, ParsesAutoAndCountsRejectsZero) {
  EXPECT_FALSE(parse_nproc_per_node("auto")->has_value());
  EXPECT_EQ(**parse_nproc_per_node("4"), 4);
  for (const char* bad : {"0", "-1", "x", "", "99999999999", "4x"}) {
    auto r = parse_nproc_per_node(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("--nproc-per-node"), std::string::npos);
  }
}

TEST(LaunchTorchrun, AutoIsOnePerSelectedDeviceAndNoPythonForBinaries) {
  auto sel = select_on("h100-8x", "devices: [0, 3]\n");
  LaunchOptions o;
  o.command = {"./bench", "--steps", "3"};
  o.nproc_per_node = "auto";
  auto plan = plan_launch(sel, o, {}, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->mode, "torchrun");
  EXPECT_EQ(plan->argv, (std::vector<std::string>{"torchrun", "--nproc_per_node", "2",
                                                  "--no_python", "./bench", "--steps", "3"}));
  EXPECT_TRUE(has_env(*plan, "ANYGPU_DIST_BACKEND", "nccl"));
}

TEST(LaunchTorchrun, InterpreterNamesAreRecognisedAndOthersAreNot) {
  for (const char* yes : {"python", "python3", "python3.11", "/venv/bin/python", "./python3.13"})
    EXPECT_TRUE(is_python_interpreter(yes)) << yes;
  for (const char* no : {"python3-config", "ipython", "python.", "python3.", "pythonw", "./train",
                         "/usr/bin/env", "", "py"})
    EXPECT_FALSE(is_python_interpreter(no)) << no;
}

// A command that names its interpreter gets torch.distributed.run from that interpreter: the
// agent then runs on the workers' torch, whatever `torchrun` PATH holds.
TEST(LaunchTorchrun, ACommandsOwnInterpreterRunsTheAgent) {
  auto sel = select_on("cloud-vm-none", "");
  LaunchOptions o;
  o.command = {"/venv/bin/python3", "-u", "train.py"};
  o.nproc_per_node = "2";
  auto plan = plan_launch(sel, o, {}, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->argv, (std::vector<std::string>{
                            "/venv/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node",
                            "2", "--no_python", "/venv/bin/python3", "-u", "train.py"}));
}

TEST(LaunchTorchrun, CpuAutoIsOneAndScriptsRunUnderPython) {
  auto sel = select_on("cloud-vm-none", "");
  LaunchOptions o;
  o.command = {"train.py", "--lr", "0.1"};
  o.nproc_per_node = "auto";
  o.nnodes = 2;
  o.node_rank = 1;
  o.master_addr = "10.0.0.1";
  o.master_port = 29501;
  HostFacts f;
  f.torchrun_needs_std_workaround = true;
  auto plan = plan_launch(sel, o, f, {}, std::nullopt);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->argv, (std::vector<std::string>{
                            "torchrun", "--nproc_per_node", "1", "--nnodes", "2", "--node_rank",
                            "1", "--master_addr", "10.0.0.1", "--master_port", "29501",
                            "--redirects", "1", "--tee", "1", "train.py", "--lr", "0.1"}));
  EXPECT_TRUE(has_env(*plan, "ANYGPU_DIST_BACKEND", "gloo"));
}

TEST(LaunchTorchrun, BadValuesAreErrors) {
  auto sel = select_on("cloud-vm-none", "");
  LaunchOptions o;
  o.command = {"x"};
  o.nproc_per_node = "0";
  EXPECT_FALSE(plan_launch(sel, o, {}, {}, std::nullopt).ok());
  o.nproc_per_node = "2";
  o.nnodes = 2;
  o.node_rank = 2;
  auto r = plan_launch(sel, o, {}, {}, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--node-rank 2"), std::string::npos);
  LaunchOptions no_torchrun;
  no_torchrun.command = {"x"};
  no_torchrun.master_port = 1234;
  EXPECT_FALSE(plan_launch(sel, no_torchrun, {}, {}, std::nullopt).ok());
}

TEST(LaunchTorchrun, NprocDividesWorkers) {
  auto one = select_on("h100-8x", "devices: [0, 1]\n", 1);
  auto four = select_on("h100-8x", "devices: [0, 1]\n", 4);
  EXPECT_GT(one.num_workers, 1);
  EXPECT_EQ(four.num_workers, std::max(1, one.num_workers / 4));
}

SlurmContext two_node_job() {
  SlurmContext s;
  s.job_id = "4242";
  s.nodes = {"gpu01", "gpu02"};
  s.master_addr = "gpu01";
  s.master_port = 17342;
  s.rank = 5;
  s.world_size = 8;
  s.local_rank = 1;
  s.local_world_size = 4;
  s.node_rank = 1;
  s.nnodes = 2;
  s.gpus = std::vector<std::string>{"2", "3"};
  return s;
}

// The devices behind an allocation, by selecting with the config apply_slurm_gpus produced.
std::vector<std::string> selected_bus_ids(const Inventory& inv, const AcceleratorConfig& cfg) {
  SelectInputs in;
  in.allocation_governs = true;
  auto sel = select_devices(inv, cfg, in);
  EXPECT_TRUE(sel.ok()) << sel.error().message;
  std::vector<std::string> out;
  if (sel.ok())
    for (const auto& d : sel->devices) out.push_back(d.vendor + " " + d.pci.address.str());
  return out;
}

TEST(LaunchSlurm, GpusBecomeTheDeviceList) {
  auto inv = test::fixture_inventory("h100-8x");
  auto cfg = *parse_accelerator_config("devices: 1\n", "c.yaml");
  std::vector<std::string> notes;
  ASSERT_TRUE(*apply_slurm_gpus(two_node_job(), inv, cfg, notes));
  ASSERT_EQ(cfg.list.size(), 2u);
  EXPECT_FALSE(cfg.count);
  EXPECT_EQ(cfg.backend, "nvidia");
  // Single-vendor node: gres.conf's line order is the vendor's PCI order, so index = index.
  std::vector<std::string> want;
  for (const auto& d : inv.devices)
    if (d.index == 2 || d.index == 3) want.push_back(d.vendor + " " + d.pci.address.str());
  EXPECT_EQ(selected_bus_ids(inv, cfg), want);
  auto bad = two_node_job();
  bad.gpus = std::vector<std::string>{"0", "gpu:a100"};
  auto r = apply_slurm_gpus(bad, inv, cfg, notes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_NE(r.error().message.find("gpu:a100"), std::string::npos);
}

// slurmd (AutoDetect=off) numbers a node's GPUs in gres.conf line order across Types: on the
// mixed workstation the RTX 4090 is line 1 and the RX 7900 line 2, so a step given the AMD GPU
// reads SLURM_STEP_GPUS=1 (seen from a real slurmd in tests/e2e/cluster_slurm_test.sh) while
// its AMD index is 0. Each index must land on its own line's device and vendor.
TEST(LaunchSlurm, MixedNodeIndicesAreGresLinesNotVendorIndices) {
  auto inv = test::fixture_inventory("workstation-mixed");
  auto job = two_node_job();
  auto apply = [&](std::vector<std::string> gpus, const std::string& config_text) {
    job.gpus = std::move(gpus);
    auto cfg = *parse_accelerator_config(config_text, "c.yaml");
    std::vector<std::string> notes;
    auto r = apply_slurm_gpus(job, inv, cfg, notes);
    return std::make_pair(std::move(r), cfg);
  };
  auto [amd, amd_cfg] = apply({"1"}, "");
  ASSERT_TRUE(amd.ok()) << amd.error().message;
  EXPECT_EQ(amd_cfg.backend, "amd");
  EXPECT_EQ(selected_bus_ids(inv, amd_cfg), std::vector<std::string>{"amd 0000:04:00.0"});
  auto [nv, nv_cfg] = apply({"0"}, "");
  ASSERT_TRUE(nv.ok()) << nv.error().message;
  EXPECT_EQ(selected_bus_ids(inv, nv_cfg), std::vector<std::string>{"nvidia 0000:01:00.0"});

  auto [both, both_cfg] = apply({"0", "1"}, "");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().kind, ErrorKind::host);
  EXPECT_NE(both.error().message.find("nvidia and amd"), std::string::npos);
  EXPECT_NE(both.error().message.find("one process drives one vendor"), std::string::npos);

  auto [past, past_cfg] = apply({"2"}, "");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message.find("has 2 GPU lines"), std::string::npos);

  auto [clash, clash_cfg] = apply({"1"}, "backend: cuda\n");
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.error().message.find("Slurm allocated amd GPUs (1)"), std::string::npos);
}

TEST(LaunchSlurm, RanksAndSlurmsOwnCudaVariableKept) {
  auto sel = select_on("h100-8x", "devices: [2, 3]\n");
  LaunchOptions o;
  o.command = {"./train"};
  Environment env = {{"SLURM_JOB_ID", "4242"}, {"CUDA_VISIBLE_DEVICES", "0,1"}};
  auto plan = plan_launch(sel, o, {}, env, two_node_job());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_FALSE(sets(*plan, "CUDA_VISIBLE_DEVICES"));  // Slurm's (cgroup-relative) value stays
  EXPECT_TRUE(has_env(*plan, "MASTER_ADDR", "gpu01"));
  EXPECT_TRUE(has_env(*plan, "MASTER_PORT", "17342"));
  EXPECT_TRUE(has_env(*plan, "RANK", "5"));
  EXPECT_TRUE(has_env(*plan, "WORLD_SIZE", "8"));
  EXPECT_TRUE(has_env(*plan, "LOCAL_RANK", "1"));
  EXPECT_TRUE(has_env(*plan, "LOCAL_WORLD_SIZE", "4"));
  EXPECT_TRUE(has_env(*plan, "NODE_RANK", "1"));
}

// A gres line per MIG instance (slurm gres without NVML's detection): Slurm's CUDA variable is
// the line index, which names no instance to CUDA, so the instance's MIG-<uuid> replaces it; a
// MIG-<uuid> Slurm set itself (AutoDetect=nvml) stays.
TEST(LaunchSlurm, MigInstanceIsNamedByItsUuidNotSlurmsIndex) {
  auto inv = test::fixture_inventory("h100-8x-mig");
  inv.devices[1].partitions[2].uuid = inv.devices[1].partitions[2].id = "MIG-x-1-2";
  auto job = two_node_job();
  job.gpus = std::vector<std::string>{"9"};  // gres.conf line 10: GPU 1, instance 2
  auto cfg = *parse_accelerator_config("", "c.yaml");
  std::vector<std::string> notes;
  ASSERT_TRUE(apply_slurm_gpus(job, inv, cfg, notes).ok());
  SelectInputs in;
  in.allocation_governs = true;
  auto sel = select_devices(inv, cfg, in);
  ASSERT_TRUE(sel.ok()) << sel.error().message;
  LaunchOptions o;
  o.command = {"./train"};
  auto plan = plan_launch(*sel, o, {}, {{"SLURM_JOB_ID", "1"}, {"CUDA_VISIBLE_DEVICES", "9"}}, job);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(has_env(*plan, "CUDA_VISIBLE_DEVICES", "MIG-x-1-2"));
  plan = plan_launch(*sel, o, {}, {{"SLURM_JOB_ID", "1"}, {"CUDA_VISIBLE_DEVICES", "MIG-y"}}, job);
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(sets(*plan, "CUDA_VISIBLE_DEVICES"));
}

// A tiled card is one gres line (its tiles share its nodes): the allocation selects every tile
// of it. Slurm's ZE_AFFINITY_MASK counts cards, which under the FLAT hierarchy a selection of
// tiles sets would name a tile: the tiles' flat numbers replace it, in Slurm's own numbering
// (host indices when it gave the gres indices, else the step's cgroup-local ones).
TEST(LaunchSlurm, ATiledCardsLineSelectsItsTilesAndSlurmsCardMaskBecomesTheirs) {
  auto inv = test::fixture_inventory("intel-max-arc");
  auto job = two_node_job();
  job.gpus = std::vector<std::string>{"2"};  // gres.conf line 3: the second Max 1550
  auto cfg = *parse_accelerator_config("", "c.yaml");
  std::vector<std::string> notes;
  ASSERT_TRUE(apply_slurm_gpus(job, inv, cfg, notes).ok());
  SelectInputs in;
  in.allocation_governs = true;
  auto sel = select_devices(inv, cfg, in);
  ASSERT_TRUE(sel.ok()) << sel.error().message;
  ASSERT_EQ(sel->devices.size(), 2u);
  ASSERT_TRUE(sel->partition_of(0) && sel->partition_of(1));
  EXPECT_EQ(sel->partition_of(0)->id, "0000:9a:00.0/0");
  EXPECT_EQ(sel->partition_of(1)->id, "0000:9a:00.0/1");
  LaunchOptions o;
  o.command = {"./train"};
  // The A770 is flat 0, the first Max's tiles 1 and 2: this card's are 3 and 4.
  auto plan = plan_launch(*sel, o, {}, {{"SLURM_JOB_ID", "1"}, {"ZE_AFFINITY_MASK", "2"}}, job);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(has_env(*plan, "ZE_AFFINITY_MASK", "3,4"));
  EXPECT_TRUE(has_env(*plan, "ZE_FLAT_DEVICE_HIERARCHY", "FLAT"));
  plan = plan_launch(*sel, o, {}, {{"SLURM_JOB_ID", "1"}, {"ZE_AFFINITY_MASK", "0"}}, job);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(has_env(*plan, "ZE_AFFINITY_MASK", "0,1"));
  // Without tiles the hierarchy is not FLAT and Slurm's card mask is kept.
  auto flex = test::fixture_inventory("intel-flex-sriov");
  job.gpus = std::vector<std::string>{"1"};
  cfg = *parse_accelerator_config("", "c.yaml");
  ASSERT_TRUE(apply_slurm_gpus(job, flex, cfg, notes).ok());
  auto vf = select_devices(flex, cfg, in);
  ASSERT_TRUE(vf.ok()) << vf.error().message;
  plan = plan_launch(*vf, o, {}, {{"SLURM_JOB_ID", "1"}, {"ZE_AFFINITY_MASK", "0"}}, job);
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(sets(*plan, "ZE_AFFINITY_MASK"));
}

TEST(LaunchSlurm, AscendVariableDerivedBecauseSlurmSetsNone) {
  auto sel = select_on("ascend-910b-8x", "devices: [2, 3]\n");
  LaunchOptions o;
  o.command = {"./train"};
  auto plan = plan_launch(sel, o, {}, {{"SLURM_JOB_ID", "4242"}}, two_node_job());
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(has_env(*plan, "ASCEND_RT_VISIBLE_DEVICES", "2,3"));
  EXPECT_TRUE(has_env(*plan, "ANYGPU_DIST_BACKEND", "hccl"));
}

TEST(LaunchSlurm, RocrFromSlurmSuppressesHip) {
  auto sel = select_on("mi300x-8x", "devices: [2, 3]\n");
  LaunchOptions o;
  o.command = {"./train"};
  auto plan = plan_launch(sel, o, {}, {{"ROCR_VISIBLE_DEVICES", "0,1"}}, two_node_job());
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(sets(*plan, "HIP_VISIBLE_DEVICES"));
  EXPECT_TRUE(plan->unset_env.empty());
}

TEST(LaunchSlurm, TorchrunTakesNodesFromTheAllocation) {
  auto sel = select_on("h100-8x", "devices: [2, 3]\n");
  LaunchOptions o;
  o.command = {"train.py"};
  o.nproc_per_node = "auto";
  auto plan = plan_launch(sel, o, {}, {}, two_node_job());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->argv, (std::vector<std::string>{"torchrun", "--nproc_per_node", "2", "--nnodes",
                                                  "2", "--node_rank", "1", "--master_addr", "gpu01",
                                                  "--master_port", "17342", "train.py"}));
  EXPECT_FALSE(sets(*plan, "RANK"));  // torchrun sets the per-process ranks itself
  EXPECT_TRUE(has_env(*plan, "MASTER_ADDR", "gpu01"));
}

// Through the cluster library's parser: a real-looking environment in, the context out.
TEST(LaunchSlurm, ContextFromEnvironment) {
  Environment env = {{"SLURM_JOB_ID", "77"},     {"SLURM_JOB_NODELIST", "gpu[01-02,07]"},
                     {"SLURM_PROCID", "3"},      {"SLURM_NTASKS", "6"},
                     {"SLURM_LOCALID", "1"},     {"SLURM_NODEID", "1"},
                     {"SLURM_NNODES", "3"},      {"SLURM_TASKS_PER_NODE", "2(x3)"},
                     {"SLURM_STEP_GPUS", "4,5"}, {"SLURM_JOB_GPUS", "4,5,6"}};
  auto ctx = slurm_context(env);
  ASSERT_TRUE(ctx.ok()) << ctx.error().message;
  ASSERT_TRUE(ctx->has_value());
  const auto& s = **ctx;
  EXPECT_EQ(s.master_addr, "gpu01");
  EXPECT_EQ(s.nodes, (std::vector<std::string>{"gpu01", "gpu02", "gpu07"}));
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.world_size, 6);
  EXPECT_EQ(s.gpus, (std::vector<std::string>{"4", "5"}));
  EXPECT_GE(s.master_port, 1024);
}

TEST(LaunchSlurm, MalformedNodelistIsBadInput) {
  Environment env = {{"SLURM_JOB_ID", "77"}, {"SLURM_JOB_NODELIST", "gpu[01-"}};
  auto ctx = slurm_context(env);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.error().kind, ErrorKind::bad_input);
  EXPECT_NE(ctx.error().message.find("SLURM_JOB_NODELIST"), std::string::npos)
      << ctx.error().message;
}

}  // namespace
}  // namespace anygpu
