// anygpu preflight: the per-process result files (every malformed form named by file and field,
// JSON faults by line:column), the judgement against the registry's datasheet figures, the
// verdict per device (a missing result fails; skipped is never ok), the exit code and JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "preflight/preflight_result.h"
#include "util/exit_codes.h"

namespace anygpu {
namespace {

std::string result_text(int rank, int world, const std::string& tests) {
  return "{\"schema\": \"anygpu.preflight-rank/v1\", \"rank\": " + std::to_string(rank) +
         ", \"local_rank\": " + std::to_string(rank) + ", \"world_size\": " +
         std::to_string(world) + ", \"device\": \"cuda:" + std::to_string(rank) +
         "\", \"torch\": \"2.15.0\", \"tests\": [" + tests + "]}";
}

const std::string kMeasured =
    "{\"name\": \"matmul\", \"status\": \"measured\", \"value\": 700.5, \"unit\": \"TFLOPS\"},"
    "{\"name\": \"memory_pattern\", \"status\": \"pass\", \"value\": 0},"
    "{\"name\": \"memory_bandwidth\", \"status\": \"measured\", \"value\": 3000, \"unit\": "
    "\"GB/s\"},"
    "{\"name\": \"all_reduce\", \"status\": \"pass\", \"value\": 120.5, \"unit\": \"GB/s\"}";

RankResult parsed(const std::string& tests, const std::string& device = "cuda:0") {
  auto r = parse_rank_result(result_text(0, 1, tests), "rank-0.json");
  EXPECT_TRUE(r) << r.error().message;
  RankResult out = r ? *r : RankResult{};
  out.device = device;
  return out;
}

PreflightUnit h100() {
  PreflightUnit u;
  u.pci_bus_id = "0000:18:00.0";
  u.id = *u.pci_bus_id;
  u.name = "NVIDIA H100 80GB HBM3";
  u.spec = Registry::builtin().device("nvidia", 0x2330);
  return u;
}

const PreflightTest& test_named(const UnitVerdict& v, const std::string& name) {
  for (const auto& t : v.tests)
    if (t.name == name) return t;
  ADD_FAILURE() << "no test " << name;
  static PreflightTest none;
  return none;
}

TEST(PreflightResult, ParsesEveryField) {
  auto r = parse_rank_result(result_text(1, 2, kMeasured), "rank-1.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->rank, 1);
  EXPECT_EQ(r->world_size, 2);
  EXPECT_EQ(r->device, "cuda:1");
  EXPECT_EQ(r->torch, "2.15.0");
  ASSERT_EQ(r->tests.size(), 4u);
  EXPECT_EQ(r->tests[0].name, "matmul");
  EXPECT_EQ(r->tests[0].value, 700.5);
  EXPECT_EQ(r->tests[0].unit, "TFLOPS");
  EXPECT_EQ(r->tests[1].status, "pass");
}

TEST(PreflightResult, MalformedInputIsNamedByFileAndField) {
  struct Case {
    std::string text, message;
  };
  std::vector<Case> cases = {
      {"{\"schema\": \"anygpu.preflight-rank/v1\",\n  \"rank\": }", "r.json:2:11: invalid JSON"},
      {"", "r.json:1:1: invalid JSON"},
      {"[]", "r.json: document: expected an object"},
      {"{\"schema\": \"anygpu.preflight-rank/v9\"}", "schema: \"anygpu.preflight-rank/v9\""},
      {"{\"rank\": 0}", "r.json: schema: missing"},
      {result_text(2, 2, kMeasured), "r.json: rank: expected 0 to 1"},
      {result_text(0, 0, kMeasured), "world_size: expected 1 to 65536"},
      {result_text(0, 1, ""), "tests: expected a list of 1 to 32 tests"},
      {result_text(0, 1, "7"), "tests[0]: expected an object"},
      {result_text(0, 1, "{\"status\": \"pass\"}"), "tests[0].name: missing"},
      {result_text(0, 1, "{\"name\": \"\", \"status\": \"pass\"}"), "tests[0].name: empty"},
      {result_text(0, 1, "{\"name\": \"m\", \"status\": \"ok\"}"),
       "tests[0].status: \"ok\": expected pass, fail, measured or skipped"},
      {result_text(0, 1, "{\"name\": \"m\", \"status\": \"measured\"}"),
       "tests[0]: a measured test without a value"},
      {result_text(0, 1, "{\"name\": \"m\", \"status\": \"pass\", \"value\": \"fast\"}"),
       "tests[0].value: expected a finite number"},
      {result_text(0, 1, "{\"name\": \"m\", \"status\": \"pass\", \"unit\": 3}"),
       "tests[0].unit: expected text"},
      {result_text(0, 1, "{\"name\": \"m\", \"status\": \"pass\"},{\"name\": \"m\", \"status\": "
                         "\"pass\"}"),
       "tests[1].name: \"m\" given twice"},
      {result_text(0, 1, "{\"name\": \"" + std::string(600, 'x') + "\", \"status\": \"pass\"}"),
       "tests[0].name: expected text of at most 512 bytes"},
  };
  for (const auto& c : cases) {
    auto r = parse_rank_result(c.text, "r.json");
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << "want '" << c.message << "', got '" << r.error().message << "'";
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  }
}

TEST(PreflightResult, ReadsRankFilesAndLeavesMissingOnesAbsent) {
  auto dir = std::filesystem::temp_directory_path() /
             ("preflight-read-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "rank-0.json") << result_text(0, 3, kMeasured);
  std::ofstream(dir / "rank-2.json") << result_text(2, 3, kMeasured);
  auto read = read_rank_results(dir.string(), 3);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->size(), 3u);
  EXPECT_TRUE((*read)[0]);
  EXPECT_FALSE((*read)[1]);
  EXPECT_EQ((*read)[2]->rank, 2);
  // A file holding another rank's result, and one too large, are refused by name.
  std::ofstream(dir / "rank-1.json") << result_text(2, 3, kMeasured);
  read = read_rank_results(dir.string(), 3);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("rank-1.json: holds the result of rank 2"),
            std::string::npos)
      << read.error().message;
  std::ofstream(dir / "rank-1.json") << std::string(70000, ' ');
  read = read_rank_results(dir.string(), 3);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("larger than 64 KiB"), std::string::npos);
  std::filesystem::remove(dir / "rank-1.json");
  std::filesystem::create_directory(dir / "rank-1.json");
  read = read_rank_results(dir.string(), 3);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("rank-1.json"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(PreflightJudge, RatesAreJudgedAgainstTheDatasheet) {
  auto v = judge_unit(h100(), parsed(kMeasured), "");
  EXPECT_EQ(v.verdict, PreflightVerdict::ok) << v.reason;
  const auto& mm = test_named(v, "matmul");
  EXPECT_EQ(mm.status, "pass");
  ASSERT_TRUE(mm.expected_min);
  EXPECT_DOUBLE_EQ(*mm.expected_min, 989.5 * kPreflightFloor);
  const auto& bw = test_named(v, "memory_bandwidth");
  EXPECT_EQ(bw.status, "pass");
  EXPECT_DOUBLE_EQ(*bw.expected_min, 3350 * kPreflightFloor);

  // A third of the datasheet rate fails the device, naming the figure and its source.
  std::string slow = kMeasured;
  slow.replace(slow.find("700.5"), 5, "300.0");
  v = judge_unit(h100(), parsed(slow), "");
  EXPECT_EQ(v.verdict, PreflightVerdict::fail);
  EXPECT_EQ(v.reason, "failed: matmul");
  EXPECT_NE(test_named(v, "matmul").detail->find("989.5 TFLOPS, https://www.nvidia.com/"),
            std::string::npos)
      << *test_named(v, "matmul").detail;
}

TEST(PreflightJudge, UnknownModelsPartitionsAndTheCpuAreMeasuredNotJudged) {
  PreflightUnit unknown = h100();
  unknown.spec = nullptr;
  PreflightUnit part = h100();
  part.partition = true;
  part.id = "0000:18:00.0/3";
  for (const auto& u : {unknown, part}) {
    auto v = judge_unit(u, parsed(kMeasured), "");
    EXPECT_EQ(v.verdict, PreflightVerdict::ok) << u.id;
    EXPECT_EQ(test_named(v, "matmul").status, "measured") << u.id;
    EXPECT_FALSE(test_named(v, "matmul").expected_min) << u.id;
  }
  // A torch that fell back to the CPU measured the CPU, not the H100.
  auto v = judge_unit(h100(), parsed(kMeasured, "cpu"), "");
  EXPECT_EQ(test_named(v, "matmul").status, "measured");
}

TEST(PreflightJudge, NothingUnknownPasses) {
  // No result: the device fails with how the launch ended.
  auto v = judge_unit(h100(), std::nullopt, "the launch exited with 1");
  EXPECT_EQ(v.verdict, PreflightVerdict::fail);
  EXPECT_EQ(v.reason, "its process wrote no result (the launch exited with 1)");
  // Every test skipped: skipped, not ok.
  v = judge_unit(h100(),
                 parsed("{\"name\": \"matmul\", \"status\": \"skipped\", \"detail\": \"a "
                        "simulated host\"}"),
                 "");
  EXPECT_EQ(v.verdict, PreflightVerdict::skipped);
  EXPECT_EQ(v.reason, "a simulated host");
  // A failed test fails the device even when the rest passed.
  v = judge_unit(h100(),
                 parsed(kMeasured + ",{\"name\": \"host_device_copy\", \"status\": \"fail\", "
                                    "\"detail\": \"RuntimeError: CUDA error\"}"),
                 "");
  EXPECT_EQ(v.verdict, PreflightVerdict::fail);
  EXPECT_EQ(v.reason, "failed: host_device_copy");
  // A unit skipped before launch keeps its reason and has no tests.
  PreflightUnit held = h100();
  held.skip = "held by another run (pid 7)";
  v = judge_unit(held, std::nullopt, "");
  EXPECT_EQ(v.verdict, PreflightVerdict::skipped);
  EXPECT_TRUE(v.tests.empty());
}

TEST(PreflightJudge, ExitCodeAndJson) {
  auto ok = judge_unit(h100(), parsed(kMeasured), "");
  auto failed = judge_unit(h100(), std::nullopt, "x");
  PreflightUnit held = h100();
  held.skip = "held";
  auto skipped = judge_unit(held, std::nullopt, "");
  EXPECT_EQ(preflight_exit_code({ok, skipped}), kExitOk);
  EXPECT_EQ(preflight_exit_code({ok, failed}), kExitCheckFailed);
  EXPECT_EQ(preflight_exit_code({skipped}), kExitHostLacks);
  EXPECT_EQ(preflight_exit_code({}), kExitHostLacks);
  auto j = preflight_json({ok, skipped});
  EXPECT_EQ(j["schema"], "anygpu.preflight/v1");
  ASSERT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][0]["pci_bus_id"], "0000:18:00.0");
  EXPECT_EQ(j["devices"][0]["verdict"], "ok");
  EXPECT_EQ(j["devices"][0]["tests"][0]["name"], "matmul");
  EXPECT_DOUBLE_EQ(j["devices"][0]["tests"][0]["expected"]["min"].get<double>(),
                   989.5 * kPreflightFloor);
  EXPECT_EQ(j["devices"][1]["verdict"], "skipped");
  EXPECT_EQ(j["devices"][1]["reason"], "held");
  auto text = preflight_text({ok, failed});
  EXPECT_NE(text.find("0000:18:00.0  NVIDIA H100 80GB HBM3  ok\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  matmul            700.5 TFLOPS     pass     (expected >= 346.3)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fail: its process wrote no result (x)"), std::string::npos) << text;
}

}  // namespace
}  // namespace anygpu
