#include "probe/runtimes.h"

#include <gtest/gtest.h>

namespace anygpu {

TEST(Runtimes, CudaVersionFromDriverBoundaries) {
  EXPECT_EQ(cuda_version_for_driver("550.90.07"), "12.4");
  EXPECT_EQ(cuda_version_for_driver("525.60.13"), "12.0");
  EXPECT_EQ(cuda_version_for_driver("525.60.12"), "11.8");
  EXPECT_EQ(cuda_version_for_driver("580.65.06"), "13.0");
  EXPECT_EQ(cuda_version_for_driver("580.65.05"), "12.9");
  EXPECT_EQ(cuda_version_for_driver("570.26"), "12.8");
  EXPECT_FALSE(cuda_version_for_driver("400.1"));
  EXPECT_FALSE(cuda_version_for_driver("garbage"));
  EXPECT_FALSE(cuda_version_for_driver(""));
}

TEST(Runtimes, DottedComparison) {
  EXPECT_EQ(compare_versions("535.54.03", "535.54.3"), 0);
  EXPECT_EQ(compare_versions("535.54", "535.54.0"), 0);
  EXPECT_EQ(compare_versions("535.104.05", "535.54.03"), 1);
  EXPECT_EQ(compare_versions("6.2", "6.10"), -1);
  // One comparison for every caller: a letter segment ("rc2", "x") sorts before any number.
  EXPECT_EQ(compare_versions("1.x", "1.0"), -1);
  EXPECT_FALSE(compare_versions("1..0", "1.0"));
  EXPECT_FALSE(compare_versions("x.1", "1"));
  EXPECT_FALSE(compare_versions("99999999999999999999999", "1"));
}

}  // namespace anygpu
