#include "util/cpulist.h"

#include <gtest/gtest.h>

namespace anygpu {

TEST(Cpulist, ParsesRangesAndSingles) {
  auto r = parse_cpulist("0-3,8,10-11\n");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpulist(*r), "0-3,8,10-11");
}

TEST(Cpulist, RoundTripsTheKernelFormat) {
  auto r = parse_cpulist("0-55,112-167");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 112u);
  EXPECT_EQ(format_cpulist(*r), "0-55,112-167");
}

TEST(Cpulist, EmptyIsValidAndNamesNothing) {
  auto r = parse_cpulist("\n");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
}

TEST(Cpulist, RejectsMalformedInput) {
  for (const char* bad :
       {"a", "1-", "-1", "3-1", "0-99999", "1,,2", "0x1", "1-2-3", "99999999999999999999"}) {
    auto r = parse_cpulist(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message.find("cpulist"), std::string::npos) << r.error().message;
    }
  }
}

}  // namespace anygpu
