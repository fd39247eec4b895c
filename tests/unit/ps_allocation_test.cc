// A Slurm job's GPUs from /proc/PID/environ: the value of one entry of a NUL-separated list,
// and malformed lists and values read as unknown, never as "no GPUs".
#include <gtest/gtest.h>

#include <string>

#include "ps/allocation.h"

namespace anygpu::ps {
namespace {

using namespace std::string_literals;

TEST(PsAllocation, EnvironValueFindsTheFirstEntryOfThatName) {
  auto env = "PATH=/bin\0SLURM_JOB_GPUS=0,1\0SLURM_JOB_GPUS=7\0X=a=b"s;
  EXPECT_EQ(environ_value(env, "SLURM_JOB_GPUS"), "0,1");
  EXPECT_EQ(environ_value(env, "X"), "a=b");
  EXPECT_EQ(environ_value(env, "PATH"), "/bin");
  EXPECT_FALSE(environ_value(env, "SLURM"));
  EXPECT_FALSE(environ_value(env, "SLURM_JOB_GPUS=0"));
}

TEST(PsAllocation, EnvironValueSkipsMalformedEntries) {
  EXPECT_FALSE(environ_value("", "A"));
  EXPECT_FALSE(environ_value("\0\0\0"s, "A"));
  EXPECT_FALSE(environ_value("A\0=A\0"s, "A"));
  EXPECT_EQ(environ_value("junk\0A=\0"s, "A"), "");
  EXPECT_EQ(environ_value("A=1"s, "A"), "1") << "no trailing NUL (a truncated read)";
}

TEST(PsAllocation, SlurmJobGpusAreSortedUniqueIndices) {
  EXPECT_EQ(slurm_job_gpus("SLURM_JOB_GPUS=1,0\0"s), (std::vector<int>{0, 1}));
  EXPECT_EQ(slurm_job_gpus("SLURM_JOB_GPUS=0-2,2,5\0"s), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_EQ(slurm_job_gpus("SLURM_JOB_GPUS= 3 \0"s), (std::vector<int>{3}));
}

TEST(PsAllocation, AnUnreadableAllocationIsUnknownNotEmpty) {
  EXPECT_FALSE(slurm_job_gpus("PATH=/bin\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=gpu0\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=-1\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=0,,1\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=3-1\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=99999999999999999999\0"s));
  EXPECT_FALSE(slurm_job_gpus("SLURM_JOB_GPUS=0-100000\0"s));
}

}  // namespace
}  // namespace anygpu::ps
