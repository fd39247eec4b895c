#include "anygpu.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace anygpu {

namespace {
nlohmann::json call(const char* options) {
  char* doc = anygpu_detect_json(options);
  EXPECT_NE(doc, nullptr);
  auto j = nlohmann::json::parse(doc);
  anygpu_free(doc);
  return j;
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

}  // namespace anygpu
