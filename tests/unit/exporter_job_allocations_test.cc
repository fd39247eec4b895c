// Slurm jobs found by their cgroups as well as by their holders: a job none of whose processes
// holds a device still has its allocation read, so every device of it shows as allocated and
// idle. Layouts: cgroup v1 freezer (…/slurm_NODE/uid_U/job_N/step_S) and v2
// (system.slice/slurmstepd.scope/job_N/step_S/user/task_T); slurmstepd's own environment has
// no SLURM_JOB_GPUS, the task's has.
#include <gtest/gtest.h>

#include <string>

#include "exporter/job_allocations.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu::exporter {
namespace {

using namespace std::string_literals;

HostRoot root_at(const std::string& dir) {
  HostOptions o;
  o.root = dir;
  o.load_libraries = false;
  return HostRoot(o);
}

void process(const std::string& root, int pid, const std::string& environ) {
  test::write_file(cat({root, "/proc/", std::to_string(pid), "/environ"}), environ);
}

const std::vector<std::string> kGres = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0"};

TEST(JobAllocations, JobsWithoutHoldersAreFoundByTheirCgroups) {
  test::TempDir tmp;
  auto root = tmp.path();
  auto v1 = root + "/sys/fs/cgroup/freezer/slurm_node1/uid_0/job_42";
  test::write_file(v1 + "/cgroup.procs", "");
  test::write_file(v1 + "/step_batch/cgroup.procs", "100\n101\n");
  process(root, 100, "PATH=/bin\0"s);  // slurmstepd: no allocation in its environment
  process(root, 101, "SLURM_JOB_ID=42\0SLURM_JOB_GPUS=0,2\0"s);
  auto v2 = root + "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7";
  test::write_file(v2 + "/step_0/user/task_0/cgroup.procs", "200\n");
  process(root, 200, "SLURM_JOB_GPUS=1\0"s);
  // Not jobs, or jobs whose allocation cannot be read: nothing said about them.
  test::write_file(root + "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_x/cgroup.procs",
                   "300\n");
  test::write_file(root + "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_8/cgroup.procs",
                   "junk\n-4\n400\n");  // 400 has no /proc entry (ended)
  test::write_file(root + "/sys/fs/cgroup/freezer/other/uid_0/job_9/cgroup.procs", "101\n");

  auto host = root_at(root);
  auto pids = slurm_job_pids(host);
  EXPECT_EQ(pids["42"], (std::vector<int>{100, 101}));
  EXPECT_EQ(pids["7"], (std::vector<int>{200}));
  EXPECT_EQ(pids["8"], (std::vector<int>{400}));
  EXPECT_FALSE(pids.contains("x"));
  EXPECT_FALSE(pids.contains("9")) << "beneath freezer/slurm* only";

  SlurmAllocations allocations(kGres);
  auto out = allocations.read(host, ps::ProcessScan{});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[(JobKey{"slurm", "42"})], (std::set<std::string>{kGres[0], kGres[2]}));
  EXPECT_EQ(out[(JobKey{"slurm", "7"})], (std::set<std::string>{kGres[1]}));
}

TEST(JobAllocations, AHolderOfTheJobStillAnswersFirst) {
  test::TempDir tmp;
  auto root = tmp.path();
  process(root, 500, "SLURM_JOB_GPUS=1\0"s);
  test::write_file(root + "/sys/fs/cgroup/freezer/slurm/uid_1000/job_3/step_0/cgroup.procs",
                   "501\n");
  process(root, 501, "SLURM_JOB_GPUS=0,1\0"s);
  ps::ProcessScan scan;
  ps::ProcessInfo holder;
  holder.pid = 500;
  holder.attribution.slurm = ps::Attribution::Slurm{"3", std::nullopt};
  scan.processes.push_back(holder);
  SlurmAllocations allocations(kGres);
  auto out = allocations.read(root_at(root), scan);
  EXPECT_EQ(out[(JobKey{"slurm", "3"})], (std::set<std::string>{kGres[1]}));
}

TEST(JobAllocations, NoSlurmCgroupsNoJobs) {
  test::TempDir tmp;
  EXPECT_TRUE(slurm_job_pids(root_at(tmp.path())).empty());
  SlurmAllocations allocations(kGres);
  EXPECT_TRUE(allocations.read(root_at(tmp.path()), ps::ProcessScan{}).empty());
}

}  // namespace
}  // namespace anygpu::exporter
