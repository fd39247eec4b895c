// A gathered tree is a complete bug report: on every fixture host, carrying what doctor, health
// and run read beyond discovery (groups, CDI specs behind an absolute /var/run link, a link
// loop, a kernel log, restricted device nodes), the copy answers detect, doctor (as root, as a
// stranger and as a member of the nodes' group) and health exactly as the source does, and every
// path the readers read on the source is read on the copy too.
#include <gtest/gtest.h>

#include <filesystem>

#include "gather/gather.h"
#include "gather_test_support.h"
#include "test_support.h"

namespace anygpu {

namespace {

std::string gathered(const std::string& source, const std::string& dest, bool redact = false) {
  HostOptions o;
  o.root = source;
  o.load_libraries = false;
  auto r = gather_host(HostRoot(o), dest, {.redact = redact, .version = "test", .command = {}});
  EXPECT_TRUE(r) << source << ": " << (r ? "" : r.error().message);
  return dest;
}

}  // namespace

TEST(GatherReplay, EveryFixtureHostAnswersAsItsSource) {
  auto hosts = test::fixture_host_names();
  ASSERT_GE(hosts.size(), 12u);
  for (const auto& name : hosts) {
    test::TempDir t;
    auto source = t / "source";
    auto planted = test::enrich_host(name, source);
    auto copy = gathered(source, t / "copy");
    EXPECT_EQ(test::detect_json(source), test::detect_json(copy)) << name;
    EXPECT_EQ(test::health_json(source), test::health_json(copy)) << name;
    for (const auto& who : test::identities())
      EXPECT_EQ(test::doctor_json(source, who), test::doctor_json(copy, who))
          << name << " as " << who.name;
    EXPECT_EQ(test::paths_read(source), test::paths_read(copy)) << name;
  }
}

// The planted files are what doctor's findings on the source rest on: without them in the copy
// the comparison above would fail (no CDI spec, other group names, no Xid).
TEST(GatherReplay, TheEnrichedSourceExercisesWhatGatherUsedToMiss) {
  test::TempDir t;
  auto source = t / "source";
  test::enrich_host("h100-8x", source);
  auto root = test::doctor_json(source, test::identities()[0]);
  EXPECT_NE(root.find("cdi-mounts-gone"), std::string::npos) << root;
  EXPECT_EQ(root.find("node-missing"), std::string::npos) << root;
  auto stranger = test::doctor_json(source, test::identities()[1]);
  EXPECT_NE(stranger.find("devices.no-access"), std::string::npos) << stranger;
  auto health = test::health_json(source);
  EXPECT_NE(health.find("\"xid\""), std::string::npos) << health;
}

// The copy before this change: only discovery's, metrics' and health's reads.
TEST(GatherReplay, ACopyWithoutDoctorsReadsAnswersDifferently) {
  test::TempDir t;
  auto source = t / "source";
  test::enrich_host("mi300x-8x", source);
  auto copy = gathered(source, t / "copy");
  std::filesystem::remove(copy + "/dev/kfd");
  std::filesystem::remove_all(copy + "/etc/cdi");
  EXPECT_NE(test::doctor_json(source, test::identities()[0]),
            test::doctor_json(copy, test::identities()[0]));
  EXPECT_NE(test::paths_read(source), test::paths_read(copy));
}

}  // namespace anygpu
