// Per-job accounting of the exporter: busy time from engine-counter deltas, energy apportioned
// by engine-time share (summing to the device counter), allocated devices no process of the
// job holds, the cap on (job, device) entries and unknown values left absent.
#include <gtest/gtest.h>

#include <cmath>

#include "exporter/job_accounting.h"

namespace anygpu::exporter {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kGpu0 = "0000:05:00.0";
constexpr const char* kGpu1 = "0000:26:00.0";

Inventory two_gpus() {
  Inventory inv;
  for (int i = 0; i < 2; ++i) {
    Device d;
    d.vendor = "amd";
    d.index = i;
    d.pci.address = *PciAddress::parse(i == 0 ? kGpu0 : kGpu1);
    inv.devices.push_back(d);
  }
  return inv;
}

ps::Attribution slurm(const std::string& job) {
  ps::Attribution a;
  a.slurm = ps::Attribution::Slurm{job, "0"};
  return a;
}

// A holder of `bus` with these engine counters (ns) and resident memory.
ps::ProcessInfo holder(int pid, ps::Attribution a, const std::string& bus,
                       std::map<std::string, uint64_t> engines, std::optional<uint64_t> bytes) {
  ps::ProcessInfo p;
  p.pid = pid;
  p.devices = {bus};
  p.attribution = std::move(a);
  if (!engines.empty()) p.engine_ns_by_device[bus] = std::move(engines);
  if (bytes) {
    p.memory_bytes = bytes;
    p.memory_by_device[bus] = *bytes;
  }
  return p;
}

const JobDeviceUsage* find(const JobSeries& s, const std::string& job, const std::string& bus) {
  for (const auto& u : s.usage)
    if (u.job.id == job && u.pci_bus_id == bus) return &u;
  return nullptr;
}

TEST(ExporterJobs, JobOfPrefersSlurmThenPodThenContainer) {
  ps::Attribution a;
  EXPECT_FALSE(job_of(a));
  a.container = ps::Attribution::Container{"docker", "abc"};
  EXPECT_EQ(job_of(a), (JobKey{"container", "abc"}));
  a.pod_uid = "uid";
  EXPECT_EQ(job_of(a), (JobKey{"pod", "uid"}));
  a.slurm = ps::Attribution::Slurm{"7", std::nullopt};
  EXPECT_EQ(job_of(a), (JobKey{"slurm", "7"}));
}

TEST(ExporterJobs, BusyTimeIsTheBusiestEngineDeltaWithinTheWindow) {
  JobAccountant acc(two_gpus());
  auto t0 = Clock::now();
  ps::ProcessScan s;
  s.processes = {holder(10, slurm("1"), kGpu0, {{"gfx", 5'000'000'000}, {"dma", 0}}, 1024)};
  auto first = acc.update({s, {}, {}, t0});
  ASSERT_NE(find(first, "1", kGpu0), nullptr);
  // The baseline: what ran before the exporter saw it is not counted.
  EXPECT_EQ(find(first, "1", kGpu0)->busy_seconds, 0.0);
  // 10 s later: gfx moved 4 s, dma 3 s, side by side: 4 s busy, not 7.
  s.processes = {
      holder(10, slurm("1"), kGpu0, {{"gfx", 9'000'000'000}, {"dma", 3'000'000'000}}, 2048)};
  auto second = acc.update({s, {}, {}, t0 + 10s});
  EXPECT_DOUBLE_EQ(*find(second, "1", kGpu0)->busy_seconds, 4.0);
  EXPECT_EQ(find(second, "1", kGpu0)->memory_bytes, 2048u);
  // A counter far past the window (a bogus or summed client) never exceeds the window.
  s.processes = {holder(10, slurm("1"), kGpu0, {{"gfx", 99'000'000'000}}, 2048)};
  auto third = acc.update({s, {}, {}, t0 + 20s});
  EXPECT_DOUBLE_EQ(*find(third, "1", kGpu0)->busy_seconds, 14.0);
}

TEST(ExporterJobs, ANewHolderCountsAllItsEngineTimeAndAFallingCounterRestarts) {
  JobAccountant acc(two_gpus());
  auto t0 = Clock::now();
  ps::ProcessScan s;
  acc.update({s, {}, {}, t0});
  s.processes = {holder(20, slurm("2"), kGpu0, {{"gfx", 2'000'000'000}}, {})};
  auto r = acc.update({s, {}, {}, t0 + 10s});
  EXPECT_DOUBLE_EQ(*find(r, "2", kGpu0)->busy_seconds, 2.0);
  // One of its clients closed: the counter fell; the next window counts from the new value.
  s.processes = {holder(20, slurm("2"), kGpu0, {{"gfx", 500'000'000}}, {})};
  r = acc.update({s, {}, {}, t0 + 20s});
  EXPECT_DOUBLE_EQ(*find(r, "2", kGpu0)->busy_seconds, 2.0);
  s.processes = {holder(20, slurm("2"), kGpu0, {{"gfx", 1'500'000'000}}, {})};
  r = acc.update({s, {}, {}, t0 + 30s});
  EXPECT_DOUBLE_EQ(*find(r, "2", kGpu0)->busy_seconds, 3.0);
  EXPECT_FALSE(find(r, "2", kGpu0)->memory_bytes) << "no memory figure: absent, not 0";
}

TEST(ExporterJobs, EnergyIsApportionedByEngineTimeAndSumsToTheDeviceCounter) {
  JobAccountant acc(two_gpus());
  auto t0 = Clock::now();
  ps::ProcessScan s;
  uint64_t a = 0, b = 0, other = 0;
  double energy = 1000;
  auto scan = [&] {
    s.processes = {holder(1, slurm("A"), kGpu0, {{"gfx", a}}, 1),
                   holder(2, slurm("B"), kGpu0, {{"compute", b}}, 1),
                   holder(3, ps::Attribution{}, kGpu0, {{"gfx", other}}, 1)};
  };
  scan();
  acc.update({s, {{kGpu0, energy}}, {}, t0});
  // Five windows of 10 s with different mixes; the device counter grows by each window's joules.
  const double start = energy;
  double outside = 0;  // the unattributed process's due
  struct Window {
    uint64_t a, b, other;
    double joules;
  };
  for (auto [da, db, dother, joules] :
       {Window{6, 2, 0, 3000}, Window{1, 1, 0, 1000}, Window{0, 0, 0, 500}, Window{3, 0, 0, 2500},
        Window{2, 2, 4, 4000}}) {
    a += da * 1'000'000'000;
    b += db * 1'000'000'000;
    other += dother * 1'000'000'000;
    energy += joules;
    uint64_t total = da + db + dother;
    outside +=
        total ? joules * static_cast<double>(dother) / static_cast<double>(total) : joules / 3;
    scan();
    t0 += 10s;
    acc.update({s, {{kGpu0, energy}}, {}, t0});
  }
  auto r = acc.update({s, {{kGpu0, energy}}, {}, t0 + 10s});
  double ja = *find(r, "A", kGpu0)->energy_joules, jb = *find(r, "B", kGpu0)->energy_joules;
  // Jobs plus the process outside any job account for the device's whole counter delta.
  double device = energy - start;
  EXPECT_NEAR(ja + jb + outside, device, device * 0.05);
  EXPECT_NEAR(ja + jb + outside, device, 1e-6);
  // Window 1: A 6/8 of 3000 J; window 2: half of 1000; window 3 (idle): a third of 500 each;
  // window 4: all 2500; window 5: 2/8 of 4000; the idle last scan: a third of nothing.
  EXPECT_NEAR(ja, 2250 + 500 + 500.0 / 3 + 2500 + 1000, 1e-6);
  EXPECT_NEAR(jb, 750 + 500 + 500.0 / 3 + 0 + 1000, 1e-6);
}

TEST(ExporterJobs, WithoutEngineCountersBusyAndEnergyAreAbsentNotZero) {
  JobAccountant acc(two_gpus());
  auto t0 = Clock::now();
  ps::ProcessScan s;
  s.processes = {holder(5, slurm("9"), kGpu1, {}, 4096)};  // NVIDIA: NVML memory, no DRM
  acc.update({s, {{kGpu1, 10}}, {}, t0});
  auto r = acc.update({s, {{kGpu1, 20}}, {}, t0 + 10s});
  const auto* u = find(r, "9", kGpu1);
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(u->busy_seconds);
  EXPECT_FALSE(u->energy_joules);
  EXPECT_EQ(u->memory_bytes, 4096u);
  auto text = render_jobs_prometheus(r, MetricsSnapshot{});
  EXPECT_EQ(text.find("anygpu_job_gpu_busy_seconds_total{"), std::string::npos);
  EXPECT_EQ(text.find("anygpu_job_gpu_energy_joules_total{"), std::string::npos);
  EXPECT_NE(text.find("anygpu_job_gpu_memory_bytes{vendor=\"amd\",gpu=\"1\",pci_bus_id=\"0000:26"
                      ":00.0\",job_kind=\"slurm\",job_id=\"9\"} 4096"),
            std::string::npos)
      << text;
}

TEST(ExporterJobs, ADeviceWithoutAnEnergyCounterOrAResetCounterAddsNoEnergy) {
  JobAccountant acc(two_gpus());
  auto t0 = Clock::now();
  ps::ProcessScan s;
  s.processes = {holder(1, slurm("1"), kGpu0, {{"gfx", 0}}, {})};
  acc.update({s, {}, {}, t0});
  s.processes = {holder(1, slurm("1"), kGpu0, {{"gfx", 1'000'000'000}}, {})};
  auto r = acc.update({s, {}, {}, t0 + 10s});
  EXPECT_FALSE(find(r, "1", kGpu0)->energy_joules);
  EXPECT_DOUBLE_EQ(*find(r, "1", kGpu0)->busy_seconds, 1.0);
  acc.update({s, {{kGpu0, 500}}, {}, t0 + 20s});
  r = acc.update({s, {{kGpu0, 100}}, {}, t0 + 30s});  // driver reloaded: counter went back
  EXPECT_FALSE(find(r, "1", kGpu0)->energy_joules);
  r = acc.update({s, {{kGpu0, 160}}, {}, t0 + 40s});
  EXPECT_DOUBLE_EQ(*find(r, "1", kGpu0)->energy_joules, 60.0);
}

TEST(ExporterJobs, AnAllocatedDeviceNoProcessOfTheJobHoldsIsIdle) {
  JobAccountant acc(two_gpus());
  ps::ProcessScan s;
  s.processes = {holder(1, slurm("5"), kGpu0, {{"gfx", 0}}, 1)};
  JobAllocations alloc{{{"slurm", "5"}, {kGpu0, kGpu1, "0000:99:00.0"}}};
  auto r = acc.update({s, {}, alloc, Clock::now()});
  ASSERT_NE(find(r, "5", kGpu1), nullptr);
  EXPECT_TRUE(find(r, "5", kGpu1)->allocated_idle);
  EXPECT_FALSE(find(r, "5", kGpu1)->memory_bytes);
  EXPECT_FALSE(find(r, "5", kGpu0)->allocated_idle);
  EXPECT_EQ(r.usage.size(), 2u) << "a bus the inventory does not list is ignored";
  auto text = render_jobs_prometheus(r, MetricsSnapshot{});
  EXPECT_NE(text.find("anygpu_gpu_allocated_idle{vendor=\"amd\",gpu=\"1\",pci_bus_id=\"0000:26:"
                      "00.0\",job_kind=\"slurm\",job_id=\"5\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("anygpu_gpu_allocated_idle{vendor=\"amd\",gpu=\"0\""), std::string::npos)
      << "only idle allocations are series";
}

TEST(ExporterJobs, EntriesAreCappedAndEndedJobsAreForgotten) {
  JobAccountingOptions o;
  o.max_series = 2;
  o.keep_ended = 60s;
  JobAccountant acc(two_gpus(), o);
  auto t0 = Clock::now();
  ps::ProcessScan s;
  s.processes = {holder(1, slurm("1"), kGpu0, {}, 1), holder(2, slurm("2"), kGpu0, {}, 1),
                 holder(3, slurm("3"), kGpu0, {}, 1)};
  auto r = acc.update({s, {}, {}, t0});
  EXPECT_EQ(r.usage.size(), 2u);
  EXPECT_EQ(r.dropped_cap, 1u);
  EXPECT_EQ(r.max_series, 2u);
  // Job 1 ended: its entry stays while the cap has room for nobody else, then job 3's place
  // is made by pushing the oldest entry not seen in this scan out.
  s.processes = {holder(2, slurm("2"), kGpu0, {}, 1), holder(3, slurm("3"), kGpu0, {}, 1)};
  r = acc.update({s, {}, {}, t0 + 10s});
  EXPECT_TRUE(find(r, "3", kGpu0));
  EXPECT_FALSE(find(r, "1", kGpu0));
  EXPECT_EQ(r.dropped_cap, 2u);
  // Nobody left: the entries stay for keep_ended, then go.
  s.processes.clear();
  r = acc.update({s, {}, {}, t0 + 30s});
  EXPECT_EQ(r.usage.size(), 2u);
  r = acc.update({s, {}, {}, t0 + 80s});
  EXPECT_EQ(r.usage.size(), 0u);
  EXPECT_EQ(r.dropped_ended, 2u);
  auto text = render_jobs_prometheus(r, MetricsSnapshot{});
  EXPECT_NE(text.find("anygpu_job_series_dropped_total{reason=\"cap\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("anygpu_job_series_dropped_total{reason=\"ended\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("anygpu_job_series_max 2\n"), std::string::npos);
}

}  // namespace
}  // namespace anygpu::exporter

namespace anygpu::exporter {
namespace {

// NVIDIA publishes no DRM engine counters: NVML's per-process utilisation stands in. Two jobs
// share GPU 0 at 60 % and 20 % (a third process of job 1 at 50 % caps the job at 100 %), job 3
// holds GPU 1 with nothing said about it (no busy: unknown, absent); energy over the window is
// split by the busy shares and sums to the device counter.
TEST(ExporterJobs, LibraryUtilisationStandsInForEngineCounters) {
  JobAccountant acc(two_gpus());
  auto t0 = Clock::now();
  auto sampled = [](int pid, const std::string& job, const std::string& bus,
                    std::optional<double> ratio) {
    auto p = holder(pid, slurm(job), bus, {}, std::nullopt);
    if (ratio) p.busy_ratio_by_device[bus] = *ratio;
    return p;
  };
  ps::ProcessScan s;
  s.processes = {sampled(10, "1", kGpu0, 0.6), sampled(11, "1", kGpu0, 0.5),
                 sampled(20, "2", kGpu0, 0.2), sampled(30, "3", kGpu1, std::nullopt)};
  acc.update({s, {{kGpu0, 1000.0}}, {}, t0});
  auto later = acc.update({s, {{kGpu0, 1600.0}}, {}, t0 + 10s});
  const auto* one = find(later, "1", kGpu0);
  const auto* two = find(later, "2", kGpu0);
  const auto* three = find(later, "3", kGpu1);
  ASSERT_TRUE(one && two && three);
  EXPECT_DOUBLE_EQ(one->busy_seconds.value_or(-1), 10.0);  // 0.6 + 0.5, capped at the window
  EXPECT_DOUBLE_EQ(two->busy_seconds.value_or(-1), 2.0);
  EXPECT_FALSE(three->busy_seconds);
  EXPECT_NEAR(one->energy_joules.value_or(0) + two->energy_joules.value_or(0), 600.0, 1e-9);
  EXPECT_NEAR(one->energy_joules.value_or(0), 500.0, 1e-9);  // 10 of 12 busy seconds
}

}  // namespace
}  // namespace anygpu::exporter
