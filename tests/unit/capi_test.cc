#include "anygpu.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace anygpu {

namespace {
nlohmann::json document(char* doc) {
  EXPECT_NE(doc, nullptr);
  auto j = nlohmann::json::parse(doc);
  anygpu_free(doc);
  return j;
}
nlohmann::json call(const char* options) {
  return document(anygpu_detect_json(options));
}
}  // namespace

TEST(CApi, DetectOnAFixture) {
  nlohmann::json opts{{"root", test::fixture_host("h100-8x")}, {"no_libs", true}};
  auto j = call(opts.dump().c_str());
  EXPECT_EQ(j["schema"], "anygpu.inventory/v1");
  ASSERT_EQ(j["devices"].size(), 8u);
  EXPECT_EQ(j["devices"][0]["arch"], "sm_90");
}

TEST(CApi, EnvironmentAppliesWhenOptionsAreAbsent) {
  ::setenv("ANYGPU_ROOT", test::fixture_host("mi300x-8x").c_str(), 1);
  ::setenv("ANYGPU_NO_LIBS", "1", 1);
  auto j = call(nullptr);
  ::unsetenv("ANYGPU_ROOT");
  ::unsetenv("ANYGPU_NO_LIBS");
  ASSERT_EQ(j["devices"].size(), 8u);
  EXPECT_EQ(j["devices"][0]["vendor"], "amd");
}

TEST(CApi, BadOptionsGiveAnErrorDocument) {
  for (const char* bad :
       {"not json", "[1,2]", "{\"root\": 5}", "{\"rooot\": \"/\"}", "{\"lib_timeout_ms\": 0}"}) {
    auto j = call(bad);
    EXPECT_EQ(j["schema"], "anygpu.error/v1") << bad;
    EXPECT_EQ(j["exit_code"], 2) << bad;
    EXPECT_FALSE(j["error"].get<std::string>().empty());
  }
  anygpu_free(nullptr);
  EXPECT_STREQ(anygpu_version(), ANYGPU_VERSION);
}

// Discovery's warnings are in every document the ABI returns, once, error documents included.
TEST(CApi, EveryDocumentCarriesDiscoveryWarnings) {
  test::TempDir tmp;
  auto root = tmp.path() + "/host";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  const std::string broken = "/sys/bus/pci/devices/0000:05:00.0/numa_node";
  test::write_file(root + broken, std::string("x\0\0", 3));
  const nlohmann::json warnings = {broken + ": not text (NUL bytes)"};
  nlohmann::json opts{{"root", root}, {"no_libs", true}};
  EXPECT_EQ(call(opts.dump().c_str())["warnings"], warnings);
  auto selection = document(anygpu_select_json(opts.dump().c_str()));
  EXPECT_EQ(selection["schema"], "anygpu.selection/v1");
  EXPECT_EQ(selection["warnings"], warnings);

  auto config = tmp.path() + "/accelerator-config.yaml";
  test::write_file(config, "backend: cuda\n");  // no NVIDIA device here: exit code 3
  opts["config"] = config;
  auto error = document(anygpu_select_json(opts.dump().c_str()));
  EXPECT_EQ(error["schema"], "anygpu.error/v1");
  EXPECT_EQ(error["exit_code"], 3);
  EXPECT_EQ(error["warnings"], warnings);
  EXPECT_EQ(call("not json")["warnings"], nlohmann::json::array());
}

}  // namespace anygpu
