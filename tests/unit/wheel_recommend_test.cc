// The one recommendation (`wheel`, `check`'s suggestions, doctor's fix): its headline runs on the
// host as it is, on every fixture host and inside every range; a better build behind a driver
// upgrade is apart from it; a pinned release that cannot drive the devices says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "registry/registry.h"
#include "test_support.h"
#include "util/version.h"
#include "wheel/recommend.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> fixture_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(test::fixture_host("")))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Is there any release (inside `range`) whose build drives these devices on this host now?
bool some_release_runs(const Inventory& inv, const std::optional<pep440::SpecifierSet>& range) {
  const auto& pkg = *builtin_wheel_data().package("torch");
  for (const auto& rel : pkg.releases) {
    WheelRequest r;
    r.range = range;
    auto pin = range ? pin_in_range(rel, *range) : std::optional<std::string>(rel.latest);
    if (!pin) continue;
    r.version = *pin;
    auto c = choose_wheel(builtin_wheel_data(), inv, r);
    if (c && c->accelerated) return true;
  }
  return false;
}

TEST(WheelRecommend, HeadlineRunsNowOnEveryFixtureAndRange) {
  const std::vector<std::string> ranges = {"", "<2.6.0", ">=2.1.0,<2.2.0", ">=2.4", "==2.7.*"};
  size_t hosts = 0;
  for (const auto& name : fixture_names()) {
    const auto& inv = test::fixture_inventory(name);
    ++hosts;
    for (const auto& text : ranges) {
      SCOPED_TRACE(name + " range '" + text + "'");
      WheelRequest req;
      if (!text.empty()) req.range = *pep440::SpecifierSet::parse(text);
      auto rec = recommend_build(builtin_wheel_data(), inv, req);
      ASSERT_TRUE(rec.ok()) << rec.error().message;
      const auto& now = rec->now;
      EXPECT_TRUE(now.needs.empty()) << now.needs;
      EXPECT_FALSE(rec->pin_cannot_run);
      if (req.range && !now.version.empty()) {
        EXPECT_TRUE(req.range->contains(now.version)) << now.version;
      }
      // The headline, asked for by its own pin with the real driver, is the same build.
      if (!now.version.empty() && now.pip.find("torch==") != std::string::npos) {
        WheelRequest pinned;
        pinned.version = now.version;
        pinned.vendor = now.vendor;
        auto again = choose_wheel(builtin_wheel_data(), inv, pinned);
        ASSERT_TRUE(again.ok());
        EXPECT_EQ(again->variant, now.variant) << now.reason;
      }
      // Acceleration whenever any release in reach has it.
      if (now.vendor != "none" && some_release_runs(inv, req.range)) {
        EXPECT_TRUE(now.accelerated) << now.reason;
      }
      if (const auto& later = rec->after_upgrade) {
        EXPECT_TRUE(later->accelerated);
        EXPECT_FALSE(later->needs.empty());
        EXPECT_TRUE(!now.accelerated ||
                    compare_versions(later->version, now.version).value_or(0) > 0)
            << later->version << " vs " << now.version;
      }
    }
  }
  EXPECT_GE(hosts, 10u);
}

// MI300X on amdgpu 6.8.5 (ROCm 6.2's driver): the newest torch wants ROCm 7.14, which
// that driver refuses. The headline is the newest release it runs; the newest is a second line.
TEST(WheelRecommend, Mi300xHeadlineRunsNowUpgradeApart) {
  const auto& inv = test::fixture_inventory("mi300x-8x");
  auto rec = recommend_build(builtin_wheel_data(), inv, {});
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->now.variant, "rocm7.0") << rec->now.reason;
  EXPECT_EQ(rec->now.version, "2.10.0");
  EXPECT_NE(rec->now.reason.find("the newest release, has no build that runs here now"),
            std::string::npos)
      << rec->now.reason;
  ASSERT_TRUE(rec->after_upgrade);
  EXPECT_EQ(rec->after_upgrade->variant, "rocm7.14");
  // Pinned to a release the driver cannot run: said, and no ROCm build offered as the headline.
  WheelRequest pin;
  pin.version = "2.13";
  auto pinned = recommend_build(builtin_wheel_data(), inv, pin);
  ASSERT_TRUE(pinned.ok());
  EXPECT_TRUE(pinned->pin_cannot_run);
  EXPECT_EQ(pinned->now.variant, "cpu");
}

// check's and doctor's fix keep the installed release where it runs, and stay in the range.
TEST(WheelRecommend, ReplacementKeepsTheReleaseAndTheRange) {
  const auto& inv = test::fixture_inventory("h100-8x");
  auto same = recommend_replacement(builtin_wheel_data(), inv, "2.5.1+rocm6.2", "nvidia", {});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->version, "2.5.1");
  EXPECT_EQ(same->variant.rfind("cu", 0), 0u) << same->variant;
  auto bounded = recommend_replacement(builtin_wheel_data(), inv, "2.9.0+cpu", "nvidia",
                                       *pep440::SpecifierSet::parse("<2.6.0"));
  ASSERT_TRUE(bounded);
  EXPECT_TRUE(pep440::SpecifierSet::parse("<2.6.0")->contains(bounded->version))
      << bounded->version;
  EXPECT_TRUE(bounded->accelerated);
  // A range no release of the table meets: nothing to name.
  EXPECT_FALSE(recommend_replacement(builtin_wheel_data(), inv, "2.9.0", "nvidia",
                                     *pep440::SpecifierSet::parse("<1.0")));
}

// A vendor whose own build the table does not list (T-Head's PPU, described by data alone) is
// still the vendor select hands the experiment to: its headline names the vendor's build, never
// the CPU one, which stays an alternative. On every fixture host whose primary vendor is such a
// vendor.
TEST(WheelRecommend, AVendorBuildTheTableDoesNotListIsTheHeadlineNotTheCpuBuild) {
  size_t seen = 0;
  for (const auto& name : fixture_names()) {
    const auto& inv = test::fixture_inventory(name);
    auto rec = recommend_build(builtin_wheel_data(), inv, {});
    ASSERT_TRUE(rec.ok()) << name;
    const auto* v = Registry::builtin().vendor(rec->now.vendor);
    if (!v || v->torch_build().pytorch_index || builtin_wheel_data().plugin(v->id)) continue;
    ++seen;
    SCOPED_TRACE(name);
    const auto& now = rec->now;
    EXPECT_TRUE(now.accelerated);
    EXPECT_EQ(now.variant, v->torch_package);
    EXPECT_TRUE(now.pip.empty()) << now.pip;  // no index is known: nothing to paste
    EXPECT_NE(now.reason.find("own"), std::string::npos) << now.reason;
    EXPECT_TRUE(std::any_of(now.alternatives.begin(), now.alternatives.end(),
                            [](const auto& a) { return a.variant == "cpu"; }));
  }
  EXPECT_GE(seen, 1u);  // thead-ppu-4x
}

}  // namespace
}  // namespace anygpu
