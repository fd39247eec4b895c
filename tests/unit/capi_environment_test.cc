// anygpu_environment_json: the table of environment variables with verdicts, the one the CLI
// uses; and the refusal every detect/select call gives for a variable that steers anygpu.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "anygpu.h"
#include "test_support.h"

namespace anygpu {

namespace {

nlohmann::json environment(const nlohmann::json& options) {
  char* doc = anygpu_environment_json(options.is_null() ? nullptr : options.dump().c_str());
  EXPECT_NE(doc, nullptr);
  auto j = nlohmann::json::parse(doc);
  anygpu_free(doc);
  return j;
}

nlohmann::json one(const std::string& name, const std::string& value) {
  auto j = environment({{"environment", {{name, value}}}, {"names", {name}}});
  EXPECT_EQ(j["schema"], "anygpu.environment/v1") << j.dump();
  EXPECT_EQ(j["variables"].size(), 1u) << j.dump();
  return j["variables"][0];
}

}  // namespace

TEST(CApiEnvironment, EveryRowWithItsVerdict) {
  auto j = environment(nlohmann::json::object({{"environment", nlohmann::json::object()}}));
  ASSERT_GT(j["variables"].size(), 30u);
  for (const auto& row : j["variables"]) {
    EXPECT_FALSE(row["set"].get<bool>()) << row.dump();
    EXPECT_FALSE(row["accepted"].get<std::string>().empty()) << row.dump();
  }
  auto timeout = one("ANYGPU_LIB_TIMEOUT_MS", "250");
  EXPECT_EQ(timeout["number"], 250);
  EXPECT_EQ(timeout["min"], 1);
  EXPECT_EQ(timeout["max"], 600000);
  EXPECT_EQ(timeout["readers"], nlohmann::json({"cli", "c-abi", "python"}));
  EXPECT_EQ(one("ANYGPU_NO_LIBS", "Yes")["flag"], true);
  EXPECT_EQ(one("ANYGPU_LOG", "info")["error"], "ANYGPU_LOG=\"info\": expected debug");
}

TEST(CApiEnvironment, RegistryAndSlurmChecksUtilCannotMake) {
  auto device = one("ANYGPU_TORCH_DEVICE", "hip");
  std::string error = device["error"];
  EXPECT_EQ(error.rfind("ANYGPU_TORCH_DEVICE=\"hip\": expected a torch device type of the "
                        "registry (cuda, ",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("cpu)"), std::string::npos) << error;
  EXPECT_FALSE(one("ANYGPU_TORCH_DEVICE", "npu").contains("error"));
  EXPECT_EQ(one("SLURM_JOB_NODELIST", "gpu[01-04,07]")["first"], "gpu01");
  std::string hostlist = one("SLURM_JOB_NODELIST", "[01-02")["error"];
  EXPECT_EQ(hostlist.rfind("SLURM_JOB_NODELIST: ", 0), 0u) << hostlist;
  EXPECT_TRUE(one("SLURM_TASKS_PER_NODE", "2(x").contains("error"));
  EXPECT_FALSE(one("SLURM_TASKS_PER_NODE", "2(x3),1").contains("error"));
}

TEST(CApiEnvironment, BadOptionsGiveAnErrorDocument) {
  for (const char* bad : {"[]", "{\"names\": [\"NOT_READ\"]}", "{\"names\": [1]}",
                          "{\"environment\": {\"A\": 1}}", "{\"other\": 1}", "{"}) {
    char* doc = anygpu_environment_json(bad);
    auto j = nlohmann::json::parse(doc);
    anygpu_free(doc);
    EXPECT_EQ(j["schema"], "anygpu.error/v1") << bad;
    EXPECT_EQ(j["exit_code"], 2) << bad;
  }
}

TEST(CApiEnvironment, EveryCallRefusesASteeringVariableAsTheCliDoes) {
  nlohmann::json opts{{"root", test::fixture_host("h100-8x")}, {"no_libs", true}};
  ::setenv("ANYGPU_LOG", "loud", 1);
  for (auto fn : {anygpu_detect_json, anygpu_select_json}) {
    char* doc = fn(opts.dump().c_str());
    auto j = nlohmann::json::parse(doc);
    anygpu_free(doc);
    EXPECT_EQ(j["schema"], "anygpu.error/v1") << j.dump();
    EXPECT_EQ(j["error"], "ANYGPU_LOG=\"loud\": expected debug") << j.dump();
    EXPECT_EQ(j["variable"], "ANYGPU_LOG") << j.dump();
    EXPECT_EQ(j["exit_code"], 2) << j.dump();
  }
  ::unsetenv("ANYGPU_LOG");
  char* doc = anygpu_detect_json(opts.dump().c_str());
  EXPECT_EQ(nlohmann::json::parse(doc)["schema"], "anygpu.inventory/v1");
  anygpu_free(doc);
}

}  // namespace anygpu
