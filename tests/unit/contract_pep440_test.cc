// PEP 440 versions and specifier sets, checked against what `packaging` answers.
#include <gtest/gtest.h>

#include "contract/spec.h"
#include "util/pep440.h"
#include "util/version.h"

namespace anygpu::pep440 {
namespace {

bool matches(const char* version, const char* spec) {
  auto set = SpecifierSet::parse(spec);
  EXPECT_TRUE(set.ok()) << spec << ": " << (set.ok() ? "" : set.error().message);
  return set.ok() && set->contains(version);
}

TEST(Pep440, Normalisation) {
  struct {
    const char* in;
    const char* out;
  } cases[] = {
      {"1.0", "1.0"},
      {"v1.0", "1.0"},
      {"1.0-RC1", "1.0rc1"},
      {"1.0alpha2", "1.0a2"},
      {"1.0.beta", "1.0b0"},
      {"1.0c1", "1.0rc1"},
      {"1.0preview3", "1.0rc3"},
      {"1.0-1", "1.0.post1"},
      {"1.0.rev2", "1.0.post2"},
      {"1.0-r", "1.0.post0"},
      {"1.0.dev", "1.0.dev0"},
      {"1!2.0", "1!2.0"},
      {"2.1.0+cu121", "2.1.0+cu121"},
      {"2.1.0+CU121", "2.1.0+cu121"},
      {"1.0+ubuntu-1_2", "1.0+ubuntu.1.2"},
      {" 2.3.0 ", "2.3.0"},
      {"1.13.0a0+gitunknown", "1.13.0a0+gitunknown"},
      {"007.08", "7.8"},
  };
  for (const auto& c : cases) {
    auto v = Version::parse(c.in);
    ASSERT_TRUE(v) << c.in;
    EXPECT_EQ(v->str(), c.out) << c.in;
  }
  for (const char* bad : {"", "abc", "1.0+", "1.0+a..b", "1..0", "1.0 foo", "+cu121", "1.0+cu 121",
                          "1.0-", "=1.0", "1.0.x"})
    EXPECT_FALSE(Version::parse(bad)) << bad;
}

TEST(Pep440, Ordering) {
  const char* ordered[] = {"1.0.dev0",       "1.0a1.dev1", "1.0a1",   "1.0a2",     "1.0b1",
                           "1.0rc1",         "1.0",        "1.0+abc", "1.0+abc.5", "1.0+5",
                           "1.0.post1.dev0", "1.0.post1",  "1.0.1",   "1.1.dev1",  "2.0",
                           "1!0.1"};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i) {
    auto a = Version::parse(ordered[i]), b = Version::parse(ordered[i + 1]);
    ASSERT_TRUE(a && b) << ordered[i] << " " << ordered[i + 1];
    EXPECT_EQ(compare(*a, *b), -1) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_EQ(compare(*b, *a), 1);
  }
  EXPECT_EQ(compare(*Version::parse("2.1"), *Version::parse("2.1.0.0")), 0);
}

TEST(Pep440, SpecifierTable) {
  struct {
    const char* version;
    const char* spec;
    bool expected;
  } cases[] = {
      // Local labels are ignored by ordered comparisons.
      {"2.1.0+cu121", "<2.1.1", true},
      {"2.1.0+cu121", ">=2.1.0,<2.2.0", true},
      {"2.1.1+cu121", "<2.1.1", false},
      {"2.1.0+cu121", ">2.1.0", false},
      {"2.1.0+cu121", "<=2.1.0", true},
      {"2.1.0+cu121", "==2.1.0", true},
      {"2.1.0+cu121", "==2.1.0+cu121", true},
      {"2.1.0+cu118", "==2.1.0+cu121", false},
      {"2.1.0", "==2.1.0+cu121", false},
      {"2.1.0+cu121", "!=2.1.0", false},
      {"2.1.0+rocm6.1", "!=2.1.0+cu121", true},
      // Wildcards.
      {"2.1.2", "==2.1.*", true},
      {"2.1", "==2.1.*", true},
      {"2.1.0rc1", "==2.1.*", true},
      {"2.10.0", "==2.1.*", false},
      {"2.2.0", "==2.1.*", false},
      {"2.2.0", "!=2.1.*", true},
      {"2.1.5+cpu", "!=2.1.*", false},
      {"2", "==2.0.*", true},
      // Compatible release.
      {"2.1.3", "~=2.1", true},
      {"2.9", "~=2.1", true},
      {"3.0", "~=2.1", false},
      {"2.1.3", "~=2.1.2", true},
      {"2.2.0", "~=2.1.2", false},
      {"2.1.1", "~=2.1.2", false},
      {"2.1.2+cu121", "~=2.1.2", true},
      // Pre-, post- and dev-releases.
      {"2.2.0rc1", "<2.2.0", false},
      {"2.2.0.dev20240101", "<2.2.0", false},
      {"2.2.0rc1", "<2.2.0rc2", true},
      {"2.1.0rc1", ">=2.1.0", false},
      {"2.1.0rc1", ">=2.1.0rc1", true},
      {"2.4.0a0+3bcc3cddb5", ">=2.1.0,<2.5", true},  // NGC containers ship pre-releases
      {"2.1.0.post1", ">2.1.0", false},
      {"2.1.0.post1", ">2.1.0.post0", true},
      {"2.1.1", ">2.1.0", true},
      {"2.1.0.post1", ">=2.1.0", true},
      {"1.13.0a0+gitunknown", ">=1.13.0a0", true},
      {"1.13.0a0+gitunknown", ">=2.1", false},
      // Epochs and arbitrary equality.
      {"1!1.0", ">2.0", true},
      {"1.0", "===1.0", true},
      {"1.0.0", "===1.0", false},
      {"2.3.0", ">= 2.1 , < 2.4", true},
  };
  for (const auto& c : cases)
    EXPECT_EQ(matches(c.version, c.spec), c.expected) << c.version << " in " << c.spec;
}

TEST(Pep440, BadSpecifiers) {
  for (const char* bad : {"2.1.0", ">=2.1,", ",<2", ">=", "~=2", "<2.1.*", ">=2.1.0+cu121",
                          "==2.1.*.post1", "=>2.1", "==2.1.0rc1.*", ">=banana"}) {
    auto s = SpecifierSet::parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
  }
  auto s = SpecifierSet::parse("2.1.0");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("did you mean '==2.1.0'"), std::string::npos);
  EXPECT_TRUE(SpecifierSet::parse("").ok());
}

TEST(Pep440, NonPep440InstalledVersion) {
  auto s = SpecifierSet::parse(">=1.0");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->contains("not-a-version"));
}

TEST(DottedVersions, DriverAndKernel) {
  EXPECT_EQ(compare_versions("535.54.03", "535.54.3"), 0);
  EXPECT_EQ(compare_versions("550.90.07", "535.54.03"), 1);
  EXPECT_EQ(compare_versions("535.54.02", "535.54.03"), -1);
  EXPECT_EQ(compare_versions("535.104.05", "535.54.03"), 1);
  EXPECT_EQ(compare_versions("570.26", "570.26.0"), 0);
  EXPECT_EQ(compare_versions("24.1.rc2", "24.1.0"), -1);
  EXPECT_EQ(compare_versions("24.1.rc2", "24.1.rc1"), 1);
  EXPECT_EQ(compare_versions("24.1.RC2", "23.0.3"), 1);
  EXPECT_EQ(compare_versions("6.8.5", "6.8"), 1);
  EXPECT_FALSE(compare_versions("", "1"));
  EXPECT_FALSE(compare_versions("abc", "1"));
  EXPECT_FALSE(compare_versions("1..2", "1"));
}

}  // namespace
}  // namespace anygpu::pep440
