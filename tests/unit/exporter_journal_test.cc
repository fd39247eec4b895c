// Job journals: the format read back as written, malformed journals read as far as they can be
// (each bad line named), the store carrying a journal across restarts, setting a corrupt one
// aside, refusing a linked or world-writable directory; and the report's three renderings.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "exporter/job_journal.h"
#include "exporter/job_journal_store.h"
#include "exporter/job_report.h"
#include "test_support.h"

namespace anygpu::exporter {
namespace {

using namespace std::chrono_literals;
using SysClock = std::chrono::system_clock;

constexpr const char* kHeader = "anygpu.job-journal/1\n";

JobJournalRecord sample_record() {
  JobJournalRecord r;
  r.job = {"slurm", "77"};
  JournalDevice held;
  held.vendor = "amd";
  held.index = 0;
  held.first = 1000;
  held.last = 4600;
  held.seconds = 3600;
  held.busy_seconds = 900.5;
  held.energy_joules = 720000;
  held.peak_memory_bytes = 4u << 20;
  r.devices["0000:05:00.0"] = held;
  JournalDevice idle;
  idle.vendor = "amd";
  idle.index = 1;
  idle.first = 1000;
  idle.last = 4600;
  idle.seconds = 3600;
  idle.idle_seconds = 3600;
  r.devices["0000:26:00.0"] = idle;
  return r;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(ExporterJournal, ReadsBackWhatItWrites) {
  auto r = sample_record();
  auto text = format_journal(r);
  EXPECT_TRUE(text.starts_with(kHeader));
  auto parsed = parse_journal(text);
  EXPECT_TRUE(parsed.problems.empty()) << parsed.problems.front();
  EXPECT_EQ(parsed.record.job, r.job);
  ASSERT_EQ(parsed.record.devices.size(), 2u);
  const auto& d = parsed.record.devices.at("0000:05:00.0");
  EXPECT_EQ(d.busy_seconds, 900.5);
  EXPECT_EQ(d.energy_joules, 720000.0);
  EXPECT_EQ(d.peak_memory_bytes, 4u << 20);
  const auto& idle = parsed.record.devices.at("0000:26:00.0");
  EXPECT_FALSE(idle.busy_seconds) << "unknown stays unknown through the file";
  EXPECT_FALSE(idle.energy_joules);
  EXPECT_FALSE(idle.peak_memory_bytes);
  EXPECT_EQ(format_journal(parsed.record), text);
}

TEST(ExporterJournal, NotAJournalIsAProblemAndAnEmptyRecord) {
  for (std::string text :
       {std::string(""), std::string("hello\n"), std::string("anygpu.job-journal/2\njob slurm 1\n"),
        std::string(kHeader) + "device 0000:05:00.0 first=1 last=2 seconds=1\n",
        std::string(kHeader) + std::string(20000, 'x')}) {
    auto p = parse_journal(text);
    EXPECT_FALSE(p.problems.empty()) << text.substr(0, 40);
    EXPECT_TRUE(p.record.devices.empty()) << text.substr(0, 40);
  }
}

TEST(ExporterJournal, ABadLineIsNamedAndTheOthersKept) {
  std::string good = "device 0000:05:00.0 vendor=amd gpu=0 first=10 last=20 seconds=10\n";
  for (const std::string& bad : std::vector<std::string>{
           "device 0000:26:00.0 vendor=amd gpu=1 first=10 last=20 seconds=-1\n",
           "device 0000:26:00.0 first=10 last=20 seconds=nan\n",
           "device 0000:26:00.0 first=10 last=20 seconds=inf\n",
           "device 0000:26:00.0 first=30 last=20 seconds=1\n",
           "device 0000:26:00.0 first=10 last=20\n",
           "device 0000:26:00.0 first=10 last=20 seconds=1 busy_seconds=x\n",
           "device 0000:26:00.0 first=10 last=20 seconds=1 peak_memory_bytes=-5\n",
           "device 0000:26:00.0 first=10 last=20 seconds=1 gpu=70000\n",
           "device 0000:26:00.0 first=10 last=20 seconds=1 vendor=a/b\n",
           "device 0000:26:00.0 first=10 last=20 seconds=1 junk\n",
           "device ../../etc first=10 last=20 seconds=1\n", "device\n", "job slurm 78\n",
           "job slurm ../x\n", "job other 1\n", "what is this\n", good}) {
    auto p = parse_journal(std::string(kHeader) + "job slurm 77\n" + good + bad);
    ASSERT_EQ(p.problems.size(), 1u) << bad;
    EXPECT_TRUE(p.problems[0].starts_with("line 4: ")) << p.problems[0];
    EXPECT_EQ(p.record.job, (JobKey{"slurm", "77"})) << bad;
    EXPECT_EQ(p.record.devices.size(), 1u) << bad;
  }
}

TEST(ExporterJournal, UnknownKeysOfALaterVersionAreSkipped) {
  auto p = parse_journal(std::string(kHeader) +
                         "job pod 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n"
                         "device 0000:05:00.0 first=1 last=2 seconds=1 power_peak_watts=700\n\n");
  EXPECT_TRUE(p.problems.empty());
  EXPECT_EQ(p.record.devices.size(), 1u);
}

TEST(ExporterJournal, AtMostSixtyFourDevices) {
  std::string text = std::string(kHeader) + "job container abc\n";
  for (int i = 0; i < 70; ++i) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", i);
    text += std::string("device ") + bus + " first=1 last=2 seconds=1\n";
  }
  auto p = parse_journal(text);
  EXPECT_EQ(p.record.devices.size(), kMaxJournalDevices);
  EXPECT_EQ(p.problems.size(), 1u);
}

TEST(ExporterJournal, JobIdsAreFileNameSafe) {
  EXPECT_TRUE(valid_job_id("77"));
  EXPECT_TRUE(valid_job_id("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"));
  EXPECT_FALSE(valid_job_id(""));
  EXPECT_FALSE(valid_job_id(".."));
  EXPECT_FALSE(valid_job_id("a/b"));
  EXPECT_FALSE(valid_job_id(std::string(129, 'a')));
  EXPECT_EQ(journal_file_name({"slurm", "77"}), "slurm-77.journal");
}

JobSeries series_of(const std::string& job, std::optional<double> busy,
                    std::optional<double> joules, std::optional<uint64_t> memory, bool idle,
                    bool seen = true) {
  JobSeries s;
  JobDeviceUsage u;
  u.job = {"slurm", job};
  u.pci_bus_id = "0000:05:00.0";
  u.vendor = "amd";
  u.busy_seconds = busy;
  u.energy_joules = joules;
  u.memory_bytes = memory;
  u.allocated_idle = idle;
  u.seen = seen;
  s.usage.push_back(u);
  return s;
}

TEST(ExporterJournalStore, AddsWhatTheAccountantAddedAndCarriesOnAfterARestart) {
  test::TempDir tmp;
  auto dir = tmp / "jobs";
  std::vector<std::string> warnings;
  auto warn = [&](const std::string& w) { warnings.push_back(w); };
  auto t0 = SysClock::time_point(std::chrono::seconds(1'800'000'000));
  {
    JobJournalStore store({dir, 0s, 60s}, warn);
    store.update(series_of("5", 0.0, std::nullopt, 100, false), t0);
    store.update(series_of("5", 4.0, 50.0, 300, false), t0 + 10s);
    store.update(series_of("5", 6.0, 80.0, 200, false), t0 + 20s);
  }
  auto p = parse_journal(read(dir + "/slurm-5.journal"));
  ASSERT_TRUE(p.problems.empty());
  const auto& d = p.record.devices.at("0000:05:00.0");
  EXPECT_EQ(d.seconds, 20);
  EXPECT_EQ(d.busy_seconds, 6.0);
  EXPECT_EQ(d.energy_joules, 80.0);
  EXPECT_EQ(d.peak_memory_bytes, 300u);
  // The exporter restarted: its accountant counts from 0 again; the journal carries on. The
  // restart's gap (more than max_gap) is not the job's time.
  JobJournalStore again({dir, 0s, 60s}, warn);
  again.update(series_of("5", 0.0, std::nullopt, 100, false), t0 + 500s);
  again.update(series_of("5", 2.0, 10.0, 100, true), t0 + 510s);
  p = parse_journal(read(dir + "/slurm-5.journal"));
  const auto& e = p.record.devices.at("0000:05:00.0");
  EXPECT_EQ(e.seconds, 30);
  EXPECT_EQ(e.idle_seconds, 10);
  EXPECT_EQ(e.busy_seconds, 8.0);
  EXPECT_EQ(e.energy_joules, 90.0);
  EXPECT_EQ(e.first, 1'800'000'000);
  EXPECT_EQ(e.last, 1'800'000'510);
  EXPECT_TRUE(warnings.empty());
}

TEST(ExporterJournalStore, WritesAtMostEveryIntervalAndOnceWhenTheJobIsGone) {
  test::TempDir tmp;
  auto dir = tmp / "jobs";
  JobJournalStore store({dir, 30s, 60s}, [](const std::string&) {});
  auto t0 = SysClock::time_point(std::chrono::seconds(1'800'000'000));
  store.update(series_of("6", 0.0, std::nullopt, 1, false), t0);
  auto path = dir + "/slurm-6.journal";
  ASSERT_TRUE(std::filesystem::exists(path)) << "the first sight is written";
  store.update(series_of("6", 1.0, std::nullopt, 1, false), t0 + 10s);
  EXPECT_EQ(parse_journal(read(path)).record.devices.at("0000:05:00.0").seconds, 0)
      << "not due yet";
  store.update(series_of("6", 1.0, std::nullopt, 1, false, false), t0 + 20s);
  EXPECT_EQ(parse_journal(read(path)).record.devices.at("0000:05:00.0").seconds, 10)
      << "the job is no longer seen: its last figures go out at once";
}

TEST(ExporterJournalStore, ACorruptJournalIsSetAsideAndItsReadableLinesCarryOn) {
  test::TempDir tmp;
  auto dir = tmp / "jobs";
  std::filesystem::create_directory(dir);
  std::string corrupt = std::string(kHeader) +
                        "job slurm 8\n"
                        "device 0000:05:00.0 vendor=amd gpu=0 first=10 last=20 seconds=10\n"
                        "device 0000:26:00.0 garbage\n";
  test::write_file(dir + "/slurm-8.journal", corrupt);
  std::vector<std::string> warnings;
  JobJournalStore store({dir, 0s, 60s}, [&](const std::string& w) { warnings.push_back(w); });
  auto t0 = SysClock::time_point(std::chrono::seconds(1'800'000'000));
  store.update(series_of("8", 0.0, std::nullopt, 1, false), t0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("is corrupt (line 4"), std::string::npos) << warnings[0];
  auto aside = dir + "/slurm-8.journal.corrupt-1800000000";
  EXPECT_EQ(read(aside), corrupt) << "kept whole";
  auto p = parse_journal(read(dir + "/slurm-8.journal"));
  EXPECT_TRUE(p.problems.empty());
  EXPECT_EQ(p.record.devices.size(), 1u);
  EXPECT_EQ(p.record.devices.at("0000:05:00.0").seconds, 10);
}

TEST(ExporterJournalStore, ALinkedOrWorldWritableDirectoryIsRefused) {
  test::TempDir tmp;
  std::filesystem::create_directory(tmp / "real");
  test::make_symlink(tmp / "real", tmp / "link");
  std::filesystem::create_directory(tmp / "open");
  ::chmod((tmp / "open").c_str(), 0777);
  auto t0 = SysClock::now();
  for (auto [dir, why] : {std::pair{tmp / "link", "is a symbolic link"},
                          std::pair{tmp / "open", "is writable by every user"}}) {
    std::vector<std::string> warnings;
    JobJournalStore store({dir, 0s, 60s}, [&](const std::string& w) { warnings.push_back(w); });
    store.update(series_of("9", 0.0, std::nullopt, 1, false), t0);
    store.update(series_of("9", 1.0, std::nullopt, 1, false), t0 + 10s);
    ASSERT_EQ(warnings.size(), 1u) << "warned once";
    EXPECT_NE(warnings[0].find(why), std::string::npos) << warnings[0];
  }
  EXPECT_TRUE(std::filesystem::is_empty(tmp / "real"));
  EXPECT_TRUE(std::filesystem::is_empty(tmp / "open"));
}

TEST(ExporterJobReport, TextJsonAndEpilogSayTheSameAndLeaveUnknownsOut) {
  auto r = sample_record();
  auto text = job_report_text(r);
  EXPECT_NE(text.find("Job slurm 77"), std::string::npos) << text;
  EXPECT_NE(text.find("allocated, never held"), std::string::npos) << text;
  EXPECT_NE(text.find("Total: 2.000 GPU-hours, 12.5 % busy, 720000 J, 1 allocated GPU(s) never "
                      "held"),
            std::string::npos)
      << text;
  auto j = job_report_json(r);
  EXPECT_EQ(j["schema"], "anygpu.job-report/v1");
  EXPECT_EQ(j["devices"][0]["gpu_hours"], 1.0);
  EXPECT_NEAR(j["devices"][0]["mean_busy"].get<double>(), 900.5 / 3600, 1e-12);
  EXPECT_EQ(j["devices"][1]["mean_busy"], 0.0) << "allocated and never held: known 0";
  EXPECT_FALSE(j["devices"][1].contains("busy_seconds")) << "no engine was read there";
  EXPECT_FALSE(j["devices"][1].contains("energy_joules"));
  EXPECT_TRUE(j["devices"][1]["never_held"].get<bool>());
  EXPECT_EQ(j["total"]["never_held_devices"], 1);
  EXPECT_EQ(job_report_epilog(r),
            "anygpu job=slurm/77 gpus=2 gpu_hours=2.000 busy=12.5% peak_memory_mib=4 "
            "energy_j=720000 idle_gpus=1 idle_gpu_hours=1.000");
}

TEST(ExporterJobReport, ATotalBusyIsUnknownWhenAHeldDeviceHadNoEngineCounters) {
  // GPU 0 held without engine counters (NVIDIA, or a node with no DRM statistics), GPU 1
  // allocated and never held: the job's busy share is not 0 %, it is not known.
  auto r = sample_record();
  r.devices["0000:05:00.0"].busy_seconds.reset();
  r.devices["0000:05:00.0"].energy_joules.reset();
  r.devices["0000:05:00.0"].peak_memory_bytes.reset();
  auto j = job_report_json(r);
  EXPECT_FALSE(j["devices"][0].contains("mean_busy")) << j.dump();
  EXPECT_EQ(j["devices"][1]["mean_busy"], 0.0) << "allocated and never held: still known 0";
  EXPECT_FALSE(j["total"].contains("mean_busy")) << j.dump();
  EXPECT_FALSE(j["total"].contains("energy_joules")) << j.dump();
  EXPECT_FALSE(j["total"].contains("peak_memory_bytes")) << j.dump();
  EXPECT_EQ(job_report_epilog(r),
            "anygpu job=slurm/77 gpus=2 gpu_hours=2.000 idle_gpus=1 idle_gpu_hours=1.000");
  auto text = job_report_text(r);
  EXPECT_NE(text.find("Total: 2.000 GPU-hours, 1 allocated GPU(s) never held\n"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace anygpu::exporter
