// Which cubins and PTX run on a compute capability: the rule image check and the wheel table
// share (wheel/choose.h), with arch-specific targets (sm_90a) bound to exactly theirs and
// family-specific ones (sm_100f) to their major.
#include <gtest/gtest.h>

#include "wheel/choose.h"

namespace anygpu {
namespace {

TEST(CudaArchCovered, ArchSpecificTargetsOnlyOnTheirOwnCapability) {
  EXPECT_TRUE(cuda_arch_covered({"sm_90a"}, std::nullopt, "sm_90"));
  EXPECT_FALSE(cuda_arch_covered({"sm_90a"}, std::nullopt, "sm_89"));
  EXPECT_FALSE(cuda_arch_covered({"sm_100a"}, std::nullopt, "sm_103"));
  EXPECT_TRUE(cuda_arch_covered({"sm_100"}, std::nullopt, "sm_103"));
  EXPECT_TRUE(cuda_arch_covered({"sm_100f"}, std::nullopt, "sm_103"));
  EXPECT_FALSE(cuda_arch_covered({"sm_100f"}, std::nullopt, "sm_120"));
  // PTX: any newer capability, but arch-specific PTX only its own.
  EXPECT_TRUE(cuda_arch_covered({}, std::string("sm_90"), "sm_120"));
  EXPECT_FALSE(cuda_arch_covered({}, std::string("sm_90a"), "sm_120"));
  EXPECT_TRUE(cuda_arch_covered({}, std::string("sm_90a"), "sm_90"));
  EXPECT_FALSE(cuda_arch_covered({}, std::string("sm_90"), "sm_89"));
}

}  // namespace
}  // namespace anygpu
