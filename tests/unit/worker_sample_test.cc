// The metrics worker's messages (src/metrics/sample_protocol.h) and the parent's RemoteSampler
// against stand-in workers that answer wrongly: garbage, devices out of order, NaN, oversize,
// silence. Each is a protocol error or a timeout with the worker killed and reaped, never a
// crash of the parent; restarts wait out the backoff.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "metrics/remote_sampler.h"
#include "metrics/sample_protocol.h"
#include "test_support.h"
#include "worker/message.h"

namespace anygpu::worker {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::vector<SampleTarget> targets() {
  return {{*PciAddress::parse("0000:18:00.0"), false}, {*PciAddress::parse("0000:2a:00.0"), true}};
}

TEST(WorkerSampleProtocol, SetupRoundTrips) {
  SamplerSetup s;
  s.api = "nvml";
  s.root = "/tmp/a root";
  s.timeout = 750ms;
  s.sonames = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  s.dirs = {"/usr/lib/wsl/lib"};
  s.targets = targets();
  auto back = decode_sampler_setup(encode_sampler_setup(s));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->api, "nvml");
  EXPECT_EQ(back->root, "/tmp/a root");
  EXPECT_EQ(back->timeout, 750ms);
  EXPECT_EQ(back->sonames, s.sonames);
  EXPECT_EQ(back->dirs, s.dirs);
  ASSERT_EQ(back->targets.size(), 2u);
  EXPECT_TRUE(back->targets[1].suspended);
  EXPECT_FALSE(decode_sampler_setup("anygpu-worker 1\nsampler nvml\nend\n").ok()) << "no soname";
  EXPECT_FALSE(decode_sampler_setup("anygpu-worker 1\nsampler nvml\nsoname x\n").ok()) << "no end";
  EXPECT_FALSE(
      decode_sampler_setup("anygpu-worker 1\nsampler nvml\nsoname x\ntimeout 0\nend\n").ok());
}

TEST(WorkerSampleProtocol, SamplesRoundTripWithWarningsAndOutput) {
  DeviceSample a;
  a.utilization_ratio = 0.37;
  a.memory_used_bytes = 565182464;
  a.memory_total_bytes = 85520809984.0;
  a.temperature_celsius = 41;
  a.temperatures_celsius["gpu"] = 41;
  a.power_watts = 312.125;
  a.energy_joules = 123456.789;
  a.clocks_hertz["graphics"] = 1.98e9;
  a.warnings = {"power limit: Unknown Error (999)"};
  auto block = encode_samples(targets(), {a, {}}, {37, "mock-nvml: hi"});
  auto reply = decode_samples(block, targets());
  ASSERT_FALSE(reply.error) << *reply.error << "\n" << block;
  ASSERT_EQ(reply.samples.size(), 2u);
  const auto& b = reply.samples[0];
  EXPECT_EQ(b.pci_bus_id, "0000:18:00.0");
  EXPECT_EQ(b.utilization_ratio, 0.37);
  EXPECT_EQ(b.memory_total_bytes, 85520809984.0);
  EXPECT_EQ(b.power_watts, 312.125);
  EXPECT_EQ(b.energy_joules, 123456.789);
  EXPECT_EQ(b.clocks_hertz.at("graphics"), 1.98e9);
  EXPECT_EQ(b.warnings, a.warnings);
  EXPECT_EQ(reply.output.bytes, 37u);
  EXPECT_EQ(reply.output.excerpt, "mock-nvml: hi");
  EXPECT_FALSE(reply.samples[1].utilization_ratio);
}

TEST(WorkerSampleProtocol, MalformedRepliesAreErrorsWithNoSamples) {
  const std::pair<const char*, const char*> cases[] = {
      {"garbage\n", "from 'sample' to 'end'"},
      {"sample\ndevice 0000:18:00.0\nexport X=1\ndevice 0000:2a:00.0\nend\n", "unknown tag"},
      {"sample\ndevice 0000:2a:00.0\ndevice 0000:18:00.0\nend\n", "out of order"},
      {"sample\ndevice 0000:18:00.0\nend\n", "not every device"},
      {"sample\ndevice 0000:18:00.0\ndevice 0000:2a:00.0\ndevice 0000:3a:00.0\nend\n",
       "not asked for"},
      {"sample\ndevice 0000:18:00.0\nutilization nan\ndevice 0000:2a:00.0\nend\n", "finite"},
      {"sample\ndevice 0000:18:00.0\npower inf\ndevice 0000:2a:00.0\nend\n", "finite"},
      {"sample\ndevice 0000:18:00.0\npower 0x10\ndevice 0000:2a:00.0\nend\n", "finite"},
      {"sample\ndevice 0000:18:00.0\nutilization 1.5\ndevice 0000:2a:00.0\nend\n", "range"},
      {"sample\ndevice 0000:18:00.0\npower -3\ndevice 0000:2a:00.0\nend\n", "range"},
      {"sample\ndevice 0000:18:00.0\npower 1\npower 2\ndevice 0000:2a:00.0\nend\n", "repeated"},
      {"sample\ndevice 0000:18:00.0\ndevice 0000:2a:00.0\npower 1\nend\n", "suspended"},
      {"sample\nutilization 0.1\ndevice 0000:18:00.0\ndevice 0000:2a:00.0\nend\n", "before any"},
      {"sample\ndevice 0000:18:00.0\ndevice 0000:2a:00.0\nend\nsample\n", "unfinished"},
      {"sample\ndevice 0000:18:00.0\ndevice 0000:2a:00.0\nend\nextra\nend\n", "suspended"},
  };
  for (const auto& [text, why] : cases) {
    SCOPED_TRACE(text);
    auto reply = decode_samples(text, targets());
    ASSERT_TRUE(reply.error);
    EXPECT_TRUE(reply.samples.empty());
    if (std::string(why) != "unfinished") {
      EXPECT_NE(reply.error->find(why), std::string::npos) << *reply.error;
    }
  }
  std::string huge = "sample\ndevice 0000:18:00.0\nwarning " + std::string(kMaxLine + 1, 'a') +
                     "\ndevice 0000:2a:00.0\nend\n";
  auto reply = decode_samples(huge, targets());
  ASSERT_TRUE(reply.error);
  EXPECT_NE(reply.error->find("too long"), std::string::npos) << *reply.error;
}

// MIG instances travel under their device, keyed by GPU and compute instance ids, with only the
// values NVML has per instance; one declared without values stays without them.
TEST(WorkerSampleProtocol, PartitionsRoundTripUnderTheirDevice) {
  DeviceSample a;
  a.utilization_ratio = 0.5;
  a.memory_used_bytes = 565182464;
  PartitionSample p;
  p.gpu_instance = 7;
  p.compute_instance = 0;
  p.memory_used_bytes = 105906176;
  p.memory_total_bytes = 10200547328.0;
  a.partitions.push_back(p);
  PartitionSample bare;
  bare.gpu_instance = 2;
  bare.compute_instance = 1;
  a.partitions.push_back(bare);
  auto block = encode_samples(targets(), {a, {}}, {});
  EXPECT_NE(block.find("partition 7 0 memory-used 105906176\n"), std::string::npos) << block;
  auto reply = decode_samples(block, targets());
  ASSERT_FALSE(reply.error) << *reply.error << "\n" << block;
  const auto& b = reply.samples.at(0);
  ASSERT_EQ(b.partitions.size(), 2u);
  EXPECT_EQ(b.partitions[0].gpu_instance, 7u);
  EXPECT_EQ(b.partitions[0].memory_used_bytes, 105906176.0);
  EXPECT_EQ(b.partitions[0].memory_total_bytes, 10200547328.0);
  EXPECT_EQ(b.partitions[1].compute_instance, 1u);
  EXPECT_FALSE(b.partitions[1].memory_used_bytes);
  EXPECT_FALSE(b.partitions[1].memory_total_bytes);
  EXPECT_TRUE(b.warnings.empty());
  EXPECT_EQ(b.utilization_ratio, 0.5);
}

// A bad partition line costs that line only: a warning naming it on its device, the device's
// own values and the good partition lines kept, never a protocol error.
TEST(WorkerSampleProtocol, MalformedPartitionLinesAreDroppedWithAWarning) {
  const std::pair<const char*, const char*> cases[] = {
      {"partition 7", "2 or 4 fields"},
      {"partition 7 0 memory-used", "2 or 4 fields"},
      {"partition x 0", "bad instance ids"},
      {"partition 7 -1", "bad instance ids"},
      {"partition 65 0", "bad instance ids"},
      {"partition 7 0", "repeated partition"},
      {"partition 9 0 memory-used 1", "not declared"},
      {"partition 7 0 utilization 0.5", "not a per-partition metric"},
      {"partition 7 0 clock 1", "not a per-partition metric"},
      {"partition 7 0 bogus 1", "not a per-partition metric"},
      {"partition 7 0 memory-total nan", "finite"},
      {"partition 7 0 memory-total 0x10", "finite"},
      {"partition 7 0 memory-total -1", "out of range"},
      {"partition 7 0 memory-used 2", "repeated 'memory-used'"},
  };
  for (const auto& [line, why] : cases) {
    std::string text = std::string("sample\ndevice 0000:18:00.0\nutilization 0.25\n") +
                       "partition 7 0\npartition 7 0 memory-used 1\n" + line +
                       "\ndevice 0000:2a:00.0\nend\n";
    SCOPED_TRACE(text);
    auto reply = decode_samples(text, targets());
    ASSERT_FALSE(reply.error) << *reply.error;
    const auto& s = reply.samples.at(0);
    EXPECT_EQ(s.utilization_ratio, 0.25);
    ASSERT_EQ(s.partitions.size(), 1u);
    EXPECT_EQ(s.partitions[0].memory_used_bytes, 1.0);
    EXPECT_FALSE(s.partitions[0].memory_total_bytes);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find(why), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find("line 7"), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find("partition line dropped"), std::string::npos) << s.warnings[0];
  }
  // More partitions than any device has: the rest are dropped, each said.
  std::string many = "sample\ndevice 0000:18:00.0\n";
  for (int gi = 0; gi <= 64; ++gi)
    for (int ci = 0; ci < 2; ++ci)
      many += "partition " + std::to_string(gi) + " " + std::to_string(ci) + "\n";
  auto reply = decode_samples(many + "device 0000:2a:00.0\nend\n", targets());
  ASSERT_FALSE(reply.error) << *reply.error;
  EXPECT_EQ(reply.samples[0].partitions.size(), 64u);
  EXPECT_EQ(reply.samples[0].warnings.size(), 130u - 64u);
  // Structure stays strict: a partition line for a suspended device is a protocol error.
  auto suspended = decode_samples(
      "sample\ndevice 0000:18:00.0\ndevice 0000:2a:00.0\npartition 1 0\nend\n", targets());
  ASSERT_TRUE(suspended.error);
  EXPECT_NE(suspended.error->find("suspended"), std::string::npos) << *suspended.error;
}

TEST(WorkerSampleProtocol, Readiness) {
  EXPECT_TRUE(decode_readiness(encode_ready()).ready);
  EXPECT_EQ(decode_readiness(encode_failed("nvmlInit failed: x")).failed, "nvmlInit failed: x");
  EXPECT_TRUE(decode_readiness("anygpu-worker 1\nready now\n").error);
  EXPECT_TRUE(decode_readiness("anygpu-worker 2\nready\n").error);
  EXPECT_TRUE(decode_readiness("hello\nready\n").error);
}

TEST(WorkerSampleBackoff, DoublesFromOneSecondToSixty) {
  EXPECT_EQ(restart_backoff(0), 0ms);
  EXPECT_EQ(restart_backoff(1), 1s);
  EXPECT_EQ(restart_backoff(2), 2s);
  EXPECT_EQ(restart_backoff(3), 4s);
  EXPECT_EQ(restart_backoff(6), 32s);
  EXPECT_EQ(restart_backoff(7), 60s);
  EXPECT_EQ(restart_backoff(1000), 60s);
}

// A shell script standing in for `anygpu __worker sample`: reads the setup, says `ready`, then
// answers every `sample` line with `answer` (printf format, to fd 3).
struct FakeWorker {
  explicit FakeWorker(const std::string& answer) : saved(std::getenv("ANYGPU_WORKER")) {
    path = dir / "fake-worker";
    test::write_file(path,
                     "#!/bin/sh\n"
                     "while read l; do [ \"$l\" = end ] && break; done\n"
                     "printf 'anygpu-worker 1\\nready\\n' >&3\n"
                     "while read l; do " +
                         answer + "; done\n");
    ::chmod(path.c_str(), 0755);
    ::setenv("ANYGPU_WORKER", path.c_str(), 1);
  }
  ~FakeWorker() { ::setenv("ANYGPU_WORKER", saved.c_str(), 1); }
  test::TempDir dir;
  std::string path, saved;
};

SamplerSetup fake_setup() {
  SamplerSetup s;
  s.api = "nvml";
  s.timeout = 500ms;
  s.sonames = {"libnvidia-ml.so.1"};
  s.targets = targets();
  return s;
}

bool alive(pid_t pid) {
  return pid > 0 && ::kill(pid, 0) == 0;
}

TEST(WorkerSampleRemote, AGoodWorkerIsAskedAgainWithoutRespawning) {
  FakeWorker w(
      "printf 'sample\\ndevice 0000:18:00.0\\nutilization 0.5\\ndevice 0000:2a:00.0\\nend\\n' >&3");
  RemoteSampler r(fake_setup());
  auto first = r.sample();
  ASSERT_EQ(first.state, RemoteSampler::State::sampled) << first.message;
  ASSERT_EQ(first.samples.size(), 2u);
  EXPECT_EQ(first.samples[0].utilization_ratio, 0.5);
  pid_t pid = r.worker_pid();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(r.sample().state, RemoteSampler::State::sampled);
  EXPECT_EQ(r.worker_pid(), pid) << "one long-lived worker";
  EXPECT_EQ(r.health().crashes, 0u);
}

TEST(WorkerSampleRemote, MalformedRepliesAreProtocolErrorsAndTheWorkerIsReaped) {
  const std::pair<std::string, std::string> cases[] = {
      {"printf 'export PWNED=1\\nend\\n' >&3", "from 'sample' to 'end'"},
      {"printf 'sample\\ndevice 0000:2a:00.0\\ndevice 0000:18:00.0\\nend\\n' >&3", "out of order"},
      {"printf 'sample\\ndevice 0000:18:00.0\\nutilization nan\\ndevice 0000:2a:00.0\\nend\\n' "
       ">&3",
       "finite"},
      {"yes a | head -c 5000000 >&3", "exceeds"},
  };
  for (const auto& [answer, why] : cases) {
    SCOPED_TRACE(answer);
    FakeWorker w(answer);
    RemoteSampler r(fake_setup());
    auto out = r.sample();
    pid_t pid = r.worker_pid();
    EXPECT_EQ(out.state, RemoteSampler::State::failed) << out.message;
    EXPECT_TRUE(out.samples.empty());
    EXPECT_NE(out.message.find("protocol-error"), std::string::npos) << out.message;
    EXPECT_NE(out.message.find(why), std::string::npos) << out.message;
    EXPECT_EQ(pid, -1) << "the worker is gone";
    auto h = r.health();
    EXPECT_EQ(h.crashes, 1u);
    EXPECT_EQ(h.status, LibraryStatus::protocol_error);
    EXPECT_FALSE(h.signal) << "our SIGKILL is not the worker's signal";
  }
}

TEST(WorkerSampleRemote, SilenceIsATimeoutAndRestartsWaitOutTheBackoff) {
  FakeWorker w("sleep 30");
  RemoteSampler r(fake_setup());
  auto t0 = std::chrono::steady_clock::now();
  auto out = r.sample();
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(out.state, RemoteSampler::State::failed);
  EXPECT_NE(out.message.find("timeout"), std::string::npos) << out.message;
  EXPECT_LT(took, 1500ms);
  EXPECT_EQ(r.health().status, LibraryStatus::timeout);
  // Within the backoff: no new worker, an answer at once.
  t0 = std::chrono::steady_clock::now();
  auto waiting = r.sample();
  EXPECT_EQ(waiting.state, RemoteSampler::State::waiting) << waiting.message;
  EXPECT_NE(waiting.message.find("restarting in"), std::string::npos) << waiting.message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 50ms);
  EXPECT_EQ(r.worker_pid(), -1);
  EXPECT_EQ(r.health().crashes, 1u);
}

TEST(WorkerSampleRemote, ALibraryThatCannotInitialiseIsNotACrash) {
  test::TempDir dir;
  std::string path = dir / "failing-worker";
  test::write_file(
      path,
      "#!/bin/sh\nwhile read l; do [ \"$l\" = end ] && break; done\n"
      "printf 'anygpu-worker 1\\nfailed nvmlInit%%20failed:%%20Driver%%20Not%%20Loaded\\n' >&3\n");
  ::chmod(path.c_str(), 0755);
  std::string saved = std::getenv("ANYGPU_WORKER");
  ::setenv("ANYGPU_WORKER", path.c_str(), 1);
  RemoteSampler r(fake_setup());
  auto first = r.sample();
  EXPECT_EQ(first.state, RemoteSampler::State::unavailable);
  EXPECT_EQ(first.message, "nvmlInit failed: Driver Not Loaded");
  auto again = r.sample();  // within the backoff: the same reason, no process
  EXPECT_EQ(again.state, RemoteSampler::State::unavailable);
  EXPECT_NE(again.message.find("nvmlInit failed: Driver Not Loaded; trying again in"),
            std::string::npos)
      << again.message;
  EXPECT_EQ(r.health().crashes, 0u);
  EXPECT_FALSE(r.health().status);
  ::setenv("ANYGPU_WORKER", saved.c_str(), 1);
}

TEST(WorkerSampleRemote, DestructorKillsTheWorker) {
  FakeWorker w("printf 'sample\\ndevice 0000:18:00.0\\ndevice 0000:2a:00.0\\nend\\n' >&3");
  pid_t pid = -1;
  {
    RemoteSampler r(fake_setup());
    ASSERT_EQ(r.sample().state, RemoteSampler::State::sampled);
    pid = r.worker_pid();
    ASSERT_TRUE(alive(pid));
  }
  EXPECT_FALSE(alive(pid)) << "killed and reaped (a zombie would still answer kill 0)";
}

}  // namespace
}  // namespace anygpu::worker
