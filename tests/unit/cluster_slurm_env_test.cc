#include "cluster/slurm_env.h"

#include <gtest/gtest.h>

#include "cluster/tasks_per_node.h"

namespace anygpu {

// What srun gives task 3 of `srun -N2 -n4 --gpus-per-task=1` in job 4242.
Environment two_node_step() {
  return {{"SLURM_JOB_ID", "4242"},
          {"SLURM_JOB_NODELIST", "gpu[07-08]"},
          {"SLURM_STEP_NODELIST", "gpu[07-08]"},
          {"SLURM_PROCID", "3"},
          {"SLURM_NTASKS", "4"},
          {"SLURM_LOCALID", "1"},
          {"SLURM_NODEID", "1"},
          {"SLURM_NNODES", "2"},
          {"SLURM_TASKS_PER_NODE", "2(x2)"},
          {"SLURM_STEP_GPUS", "2,3"},
          {"SLURM_JOB_GPUS", "0,1,2,3"}};
}

TEST(SlurmEnv, AbsentOutsideAnAllocation) {
  auto r = slurm_context({{"SLURM_PROCID", "0"}});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->has_value());
}

TEST(SlurmEnv, ReadsATaskOfATwoNodeStep) {
  auto r = slurm_context(two_node_step());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const auto& c = **r;
  EXPECT_EQ(c.job_id, "4242");
  EXPECT_EQ(c.nodes, (std::vector<std::string>{"gpu07", "gpu08"}));
  EXPECT_EQ(c.master_addr, "gpu07");
  EXPECT_EQ(c.master_port, 20000 + 4242);
  EXPECT_EQ(c.rank, 3);
  EXPECT_EQ(c.world_size, 4);
  EXPECT_EQ(c.local_rank, 1);
  EXPECT_EQ(c.local_world_size, 2);
  EXPECT_EQ(c.node_rank, 1);
  EXPECT_EQ(c.nnodes, 2);
  ASSERT_TRUE(c.gpus);
  EXPECT_EQ(*c.gpus, (std::vector<std::string>{"2", "3"}));  // the step's, not the job's
}

TEST(SlurmEnv, MasterPortIsStablePerJobAndInRange) {
  EXPECT_EQ(master_port_for_job(4242), master_port_for_job(4242));
  EXPECT_NE(master_port_for_job(4242), master_port_for_job(4243));
  for (uint64_t id : {0ull, 1ull, 9999ull, 10000ull, 123456789ull, 18446744073709551615ull}) {
    int p = master_port_for_job(id);
    EXPECT_GE(p, 20000);
    EXPECT_LT(p, 30000);
  }
  auto env = two_node_step();
  env["MASTER_PORT"] = "29500";
  EXPECT_EQ((*slurm_context(env))->master_port, 29500);
  env["MASTER_PORT"] = "70000";
  EXPECT_FALSE(slurm_context(env));
}

TEST(SlurmEnv, FallbacksForOlderNamesAndBatchScripts) {
  // A batch script: no step variables; the legacy SLURM_NODELIST; the job's GPUs.
  Environment env{{"SLURM_JOB_ID", "7"},
                  {"SLURM_NODELIST", "n[1-3]"},
                  {"SLURM_JOB_GPUS", "0"},
                  {"SLURM_NTASKS_PER_NODE", "4"}};
  auto r = slurm_context(env);
  ASSERT_TRUE(r) << r.error().message;
  const auto& c = **r;
  EXPECT_EQ(c.master_addr, "n1");
  EXPECT_EQ(c.nnodes, 3);  // from the node list
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.world_size, 1);
  EXPECT_EQ(c.local_world_size, 4);
  EXPECT_EQ(*c.gpus, (std::vector<std::string>{"0"}));
  env.erase("SLURM_JOB_GPUS");
  EXPECT_FALSE((*slurm_context(env))->gpus.has_value());
}

TEST(SlurmEnv, StepNodeListPicksTheMaster) {
  auto env = two_node_step();
  env["SLURM_STEP_NODELIST"] = "gpu08";
  env["SLURM_NNODES"] = "1";
  env["SLURM_NODEID"] = "0";
  env["SLURM_NTASKS"] = "2";
  env["SLURM_PROCID"] = "1";
  env["SLURM_STEP_TASKS_PER_NODE"] = "2";
  auto r = slurm_context(env);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)->master_addr, "gpu08");
  EXPECT_EQ((*r)->nodes.size(), 2u);
}

TEST(SlurmEnv, UnevenTasksPerNode) {
  auto env = two_node_step();
  env["SLURM_NTASKS"] = "7";
  env["SLURM_NNODES"] = "4";
  env["SLURM_JOB_NODELIST"] = "n[1-4]";
  env["SLURM_STEP_NODELIST"] = "n[1-4]";
  env["SLURM_TASKS_PER_NODE"] = "2(x3),1";
  env["SLURM_NODEID"] = "3";
  env["SLURM_LOCALID"] = "0";
  env["SLURM_PROCID"] = "6";
  auto r = slurm_context(env);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)->local_world_size, 1);
}

void expect_bad(Environment env, std::string_view fragment) {
  auto r = slurm_context(env);
  ASSERT_FALSE(r) << fragment;
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
}

TEST(SlurmEnv, MalformedVariablesAreNamed) {
  auto with = [](std::string k, std::string v) {
    auto e = two_node_step();
    e[k] = v;
    return e;
  };
  expect_bad(with("SLURM_JOB_ID", "abc"), "SLURM_JOB_ID=\"abc\"");
  expect_bad(with("SLURM_JOB_NODELIST", "gpu[07-"), "SLURM_JOB_NODELIST: hostlist \"gpu[07-\"");
  expect_bad(with("SLURM_JOB_NODELIST", ","), "names no node");
  expect_bad(with("SLURM_PROCID", "-1"), "SLURM_PROCID=\"-1\"");
  expect_bad(with("SLURM_PROCID", "4"), "SLURM_PROCID=4 is not below SLURM_NTASKS=4");
  expect_bad(with("SLURM_NTASKS", "0"), "SLURM_NTASKS=\"0\"");
  expect_bad(with("SLURM_NTASKS", "99999999999999999999"), "SLURM_NTASKS");
  expect_bad(with("SLURM_NODEID", "2"), "SLURM_NODEID=2 is not below SLURM_NNODES=2");
  expect_bad(with("SLURM_TASKS_PER_NODE", "2(x"), "SLURM_TASKS_PER_NODE: tasks per node");
  expect_bad(with("SLURM_TASKS_PER_NODE", "2"), "describes 1 nodes but SLURM_NODEID=1");
  expect_bad(with("SLURM_LOCALID", "2"), "SLURM_LOCALID=2 does not fit 2 tasks");
  auto no_list = two_node_step();
  no_list.erase("SLURM_JOB_NODELIST");
  expect_bad(no_list, "SLURM_JOB_NODELIST is not");
}

TEST(TasksPerNode, ExpandsTheCompressedForm) {
  EXPECT_EQ(*parse_tasks_per_node("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(*parse_tasks_per_node("4"), (std::vector<int>{4}));
  for (const char* bad : {"", "0", "x", "2(x0)", "2(3)", "2(x3", "(x2)", "2(x99999999)", "1,,2"}) {
    auto r = parse_tasks_per_node(bad);
    EXPECT_FALSE(r) << bad;
  }
}

}  // namespace anygpu
