// run --debug-hangs: the beat line's parser (malformed input named by column), the verdict on a
// directory of beats, the report, the hang directory refused before launch, and the plan's
// variables per dist backend.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "launch/hang_beats.h"
#include "launch/hang_env.h"
#include "launch/hang_report.h"
#include "launch/hang_watch.h"

namespace anygpu {
namespace {

std::string beat_line(int rank, int64_t time_ns, const std::string& event, uint64_t seq,
                      const std::string& op = "reduce") {
  return "anygpu-beat/1 rank=" + std::to_string(rank) + " local_rank=" + std::to_string(rank) +
         " pid=" + std::to_string(100 + rank) +
         " device=cpu signal=38 threshold_s=3 count=" + std::to_string(seq * 2) +
         " seq=" + std::to_string(seq) + " time_ns=" + std::to_string(time_ns) + " event=" + event +
         " op=" + op + " collective=reduce" + std::string(40, ' ') + "\n";
}

TEST(HangBeat, ParsesEveryField) {
  auto b = parse_beat(beat_line(1, 5000000000, "enter", 9), "rank-1.beat");
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->rank, 1);
  EXPECT_EQ(b->pid, 101);
  EXPECT_EQ(b->signal, 38);
  EXPECT_EQ(b->threshold_s, 3u);
  EXPECT_EQ(b->seq, 9u);
  EXPECT_EQ(b->count, 18u);
  EXPECT_EQ(b->time_ns, 5000000000);
  EXPECT_EQ(b->event, "enter");
  EXPECT_EQ(b->collective, "reduce");
}

TEST(HangBeat, MalformedLinesNameTheColumn) {
  auto error_of = [](const std::string& text) {
    auto b = parse_beat(text, "r.beat");
    return b ? std::string("accepted") : b.error().message;
  };
  EXPECT_EQ(error_of(""),
            "r.beat:1:1: expected \"anygpu-beat/1\" (not a beat file of this version)");
  EXPECT_EQ(error_of("anygpu-beat/2 rank=0"),
            "r.beat:1:1: expected \"anygpu-beat/1\" (not a beat file of this version)");
  std::string good = beat_line(0, 1, "leave", 1);
  std::string bad_rank = good;
  bad_rank.replace(bad_rank.find("rank=0"), 6, "rank=x");
  EXPECT_EQ(error_of(bad_rank), "r.beat:1:20: rank: expected a whole number up to 2147483647");
  std::string bad_event = good;
  bad_event.replace(bad_event.find("event=leave"), 11, "event=sleep");
  EXPECT_NE(error_of(bad_event).find("event: expected enter, leave"), std::string::npos);
  EXPECT_NE(error_of("anygpu-beat/1 rank=0").find("missing \"local_rank=\""), std::string::npos);
  EXPECT_EQ(error_of(good.substr(0, 40) + "\x01" + good.substr(41)),
            "r.beat:1:41: unexpected byte in a beat line");
  EXPECT_NE(error_of(good + good).find("unexpected byte"), std::string::npos);  // two lines
  EXPECT_NE(error_of(good.substr(0, good.size() - 1) + " x").find("expected KEY=VALUE"),
            std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 1) + " rank=1").find("given twice"),
            std::string::npos);
  EXPECT_NE(error_of(good.substr(0, good.size() - 1) + " extra=1").find("unknown key \"extra\""),
            std::string::npos);
  std::string negative = good;
  negative.replace(negative.find("time_ns=1"), 9, "time_ns=-1");
  EXPECT_NE(error_of(negative).find("time_ns: expected a whole number"), std::string::npos);
  EXPECT_NE(error_of(std::string(5000, 'a')).find("too long"), std::string::npos);
}

class HangDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("anygpu-hang-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    ::chmod(dir_.c_str(), 0700);
    std::filesystem::remove_all(dir_);
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::filesystem::path dir_;
};

constexpr int64_t kSecond = 1000000000;

TEST_F(HangDir, RankOutsideACollectiveStoppedFirst) {
  // Rank 0 waits inside reduce #10, entered after rank 1's last beat; rank 1 left reduce #9.
  write("rank-0.beat", beat_line(0, 101 * kSecond, "enter", 10));
  write("rank-1.beat", beat_line(1, 100 * kSecond, "leave", 9));
  write("stacks-rank-1.txt", "Thread 0x1 (most recent call first):\n");
  auto ranks = read_beats(dir_.string());
  ASSERT_TRUE(ranks) << ranks.error().message;
  ASSERT_EQ(ranks->size(), 2u);
  EXPECT_EQ((*ranks)[1].stacks, (dir_ / "stacks-rank-1.txt").string());
  EXPECT_EQ((*ranks)[0].stacks, "");  // none dumped
  auto v = judge_hang(*ranks, 105 * kSecond, 0);
  EXPECT_TRUE(v.hang);
  EXPECT_EQ(v.threshold_s, 3u);
  ASSERT_TRUE(v.first);
  EXPECT_EQ((*ranks)[*v.first].beat.rank, 1);
  EXPECT_NE(v.why.find("outside any collective"), std::string::npos);
  auto j = hang_report_json(dir_.string(), *ranks, v);
  EXPECT_EQ(j["first"]["rank"], 1);
  EXPECT_EQ(j["ranks"][1]["age_s"], 5.0);
  EXPECT_EQ(j["ranks"][1]["last_collective"], "reduce");
  auto text = hang_report_text(dir_.string(), *ranks, v);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "hang: rank 1 (device cpu, pid 101) stopped first: stalled outside any collective "
            "while the others wait inside one");
}

TEST_F(HangDir, BehindInCollectivesStoppedFirstWhenAllWait) {
  write("rank-0.beat", beat_line(0, 100 * kSecond, "enter", 12));
  write("rank-1.beat", beat_line(1, 101 * kSecond, "enter", 11));
  write("rank-2.beat", beat_line(2, 100 * kSecond, "enter", 12));
  auto ranks = read_beats(dir_.string());
  ASSERT_TRUE(ranks);
  auto v = judge_hang(*ranks, 110 * kSecond, 0);
  ASSERT_TRUE(v.first);
  EXPECT_EQ((*ranks)[*v.first].beat.rank, 1);
}

TEST_F(HangDir, NoHangWithinTheThresholdOrExited) {
  write("rank-0.beat", beat_line(0, 100 * kSecond, "exit", 3, "exit"));
  write("rank-1.beat", beat_line(1, 104 * kSecond, "leave", 3));
  auto ranks = read_beats(dir_.string());
  ASSERT_TRUE(ranks);
  auto v = judge_hang(*ranks, 105 * kSecond, 0);
  EXPECT_FALSE(v.hang);
  EXPECT_FALSE(v.first);
  // A threshold given overrides the beats' own: one second makes rank 1 stalled.
  EXPECT_TRUE(judge_hang(*ranks, 105 * kSecond, 1).hang);
}

TEST_F(HangDir, MalformedOrMisplacedBeatsAreBadInput) {
  write("rank-0.beat", "anygpu-beat/1 rank=0\n");
  auto ranks = read_beats(dir_.string());
  ASSERT_FALSE(ranks);
  EXPECT_NE(ranks.error().message.find("rank-0.beat:1:"), std::string::npos);
  write("rank-0.beat", beat_line(1, 1, "leave", 1));  // rank 1's line in rank 0's file
  ranks = read_beats(dir_.string());
  ASSERT_FALSE(ranks);
  EXPECT_NE(ranks.error().message.find("holds the beat of rank 1"), std::string::npos);
  EXPECT_FALSE(read_beats((dir_ / "missing").string()));
}

TEST_F(HangDir, PreparedOrRefusedBeforeLaunch) {
  auto made = prepare_hang_dir((dir_ / "a/b").string());
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_TRUE(std::filesystem::is_directory(*made));
  write("file", "x");
  auto not_dir = prepare_hang_dir((dir_ / "file").string());
  ASSERT_FALSE(not_dir);
  write("rank-0.beat", beat_line(0, 1, "leave", 1));
  auto used = prepare_hang_dir(dir_.string());
  ASSERT_FALSE(used);
  EXPECT_NE(used.error().message.find("earlier launch"), std::string::npos);
  auto proc = prepare_hang_dir("/proc");  // not writable, for root too
  ASSERT_FALSE(proc);
  EXPECT_EQ(proc.error().message, "--hang-dir /proc: not writable");
  if (::geteuid() != 0) {
    std::filesystem::create_directories(dir_ / "ro");
    ::chmod((dir_ / "ro").c_str(), 0500);
    auto ro = prepare_hang_dir((dir_ / "ro").string());
    ASSERT_FALSE(ro);
    EXPECT_NE(ro.error().message.find("not writable"), std::string::npos);
    ::chmod((dir_ / "ro").c_str(), 0700);
  }
}

TEST(HangEnv, FlightRecorderOnlyForNccl) {
  HangDebug d{"/h", 7};
  LaunchOptions o;
  o.nproc_per_node = "2";
  Selection s;
  s.dist_backend = "nccl";
  std::vector<std::string> notes;
  auto env = hang_debug_env(d, o, s, {{"TORCH_NCCL_TRACE_BUFFER_SIZE", "5"}}, notes);
  ASSERT_TRUE(env);
  std::map<std::string, std::string> m(env->begin(), env->end());
  EXPECT_EQ(m["ANYGPU_HANG_DIR"], "/h");
  EXPECT_EQ(m["ANYGPU_HANG_SECONDS"], "7");
  EXPECT_EQ(m["TORCH_NCCL_DUMP_ON_TIMEOUT"], "1");
  EXPECT_EQ(m["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"], "/h/nccl-trace-rank-");
  EXPECT_EQ(m.count("TORCH_NCCL_TRACE_BUFFER_SIZE"), 0u);  // the caller's value is kept
  s.dist_backend = "gloo";
  env = hang_debug_env(d, o, s, {}, notes);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->size(), 2u);
  o.nproc_per_node.reset();
  EXPECT_FALSE(hang_debug_env(d, o, s, {}, notes));
  o.nproc_per_node = "1";
  o.image = "img";
  EXPECT_FALSE(hang_debug_env(d, o, s, {}, notes));
}

}  // namespace
}  // namespace anygpu
