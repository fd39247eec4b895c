#include "gather/gather.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "metrics/collector.h"
#include "metrics/render.h"
#include "render/inventory_json.h"
#include "test_support.h"

namespace anygpu {

TEST(Gather, ReplaysToTheSameInventory) {
  for (const char* name :
       {"h100-8x", "mi300x-8x", "laptop-hybrid", "ascend-910b-8x", "intel-max-arc"}) {
    test::TempDir t;
    HostOptions o;
    o.root = test::fixture_host(name);
    auto summary = gather_host(HostRoot(o), t / "copy");
    ASSERT_TRUE(summary) << summary.error().message;
    EXPECT_GT(summary->files, 10u);
    EXPECT_GT(summary->links, 0u);
    auto original = inventory_to_json(test::probe_root(o.root));
    auto replayed = inventory_to_json(test::probe_root(t / "copy"));
    EXPECT_EQ(original, replayed) << name;
  }
}

// What `metrics` reads must travel too: every sample field (values, warnings, absences) of the
// gathered copy equals the original's. Timestamps differ between the two samples.
std::string metric_devices(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  auto snap = sample_once(o, {});
  EXPECT_TRUE(snap) << root;
  if (!snap) return {};
  auto j = metrics_to_json(*snap);
  return j["devices"].dump(1);
}

TEST(Gather, ReplaysToTheSameMetrics) {
  for (const char* name : {"mi300x-8x", "intel-max-arc", "workstation-mixed", "hygon-dcu"}) {
    test::TempDir t;
    HostOptions o;
    o.root = test::fixture_host(name);
    o.load_libraries = false;
    ASSERT_TRUE(gather_host(HostRoot(o), t / "copy")) << name;
    auto original = metric_devices(o.root);
    EXPECT_TRUE(original.find("utilization_ratio") != std::string::npos ||
                original.find("temperature_celsius") != std::string::npos)
        << name << ": the fixture carries metric files\n"
        << original;
    EXPECT_EQ(original, metric_devices(t / "copy")) << name;
  }
}

TEST(Gather, LibrariesAreRecordedByNameOnly) {
  test::TempDir t;
  HostOptions o;
  o.root = test::fixture_host("intel-max-arc");
  ASSERT_TRUE(gather_host(HostRoot(o), t / "copy"));
  struct stat st {};
  ASSERT_EQ(::lstat((t / "copy/usr/lib/x86_64-linux-gnu/libze_loader.so.1").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::stat((t / "copy/usr/lib/x86_64-linux-gnu/libze_loader.so.1.17.6").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
}

TEST(Gather, RefusesANonEmptyDestination) {
  test::TempDir t;
  test::write_file(t / "dest/keep", "x");
  HostOptions o;
  o.root = test::fixture_host("cloud-vm-none");
  auto r = gather_host(HostRoot(o), t / "dest");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not an empty directory"), std::string::npos);
  struct stat st {};
  EXPECT_EQ(::stat((t / "dest/keep").c_str(), &st), 0);  // nothing lost
}

}  // namespace anygpu
