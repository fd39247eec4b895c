// NVIDIA_REQUIRE_CUDA as nvidia-container-cli evaluates it: OR of space-separated terms, AND of
// comma-separated conditions, legacy CUDA_VERSION, NVIDIA_DISABLE_REQUIRE, unknown brand.
#include <gtest/gtest.h>

#include "imagefit/require_cuda.h"

namespace anygpu {
namespace {

RequireFacts host_550() {
  RequireFacts f;
  f.cuda = "12.4";
  f.driver = "550.90.07";
  f.arch = "9.0";
  return f;
}

// The official 12.4.1 base image's expression (shortened).
constexpr const char* kOfficial =
    "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=tesla,driver>=535,driver<536";

TEST(RequireCuda, OrOfAndTerms) {
  auto f = host_550();
  EXPECT_EQ(evaluate_require(kOfficial, f), Tristate::yes);
  std::string unmet;
  EXPECT_EQ(evaluate_require("cuda>=12.8", f, &unmet), Tristate::no);
  EXPECT_EQ(unmet, "cuda>=12.8");
  // A brand term could rescue an old driver, but the brand is not known offline.
  f.cuda = "12.2";
  f.driver = "535.104.05";
  EXPECT_EQ(evaluate_require(kOfficial, f), Tristate::unknown);
  f.brand = "geforce";
  EXPECT_EQ(evaluate_require(kOfficial, f), Tristate::no);
  f.brand = "Tesla";
  EXPECT_EQ(evaluate_require(kOfficial, f), Tristate::yes);
  EXPECT_EQ(evaluate_require("arch>=9.0", host_550()), Tristate::yes);
  EXPECT_EQ(evaluate_require("arch>=10.0", host_550()), Tristate::no);
}

TEST(RequireCuda, VariablesAndLegacyImages) {
  auto f = host_550();
  auto v = judge_cuda_requirements({"PATH=/bin", "NVIDIA_REQUIRE_CUDA=cuda>=12.8"}, f);
  EXPECT_EQ(v.met, Tristate::no);
  EXPECT_EQ(v.failed, "cuda>=12.8");
  EXPECT_EQ(v.expression, "cuda>=12.8");
  // Every NVIDIA_REQUIRE_* is ANDed; JETPACK ones are ignored.
  v = judge_cuda_requirements({"NVIDIA_REQUIRE_CUDA=cuda>=12.0", "NVIDIA_REQUIRE_ARCH=arch>=10.0",
                               "NVIDIA_REQUIRE_JETPACK=csv-mounts=all"},
                              f);
  EXPECT_EQ(v.met, Tristate::no);
  EXPECT_EQ(v.failed, "arch>=10.0");
  // Only CUDA_VERSION: cuda>=MAJOR.MINOR.
  v = judge_cuda_requirements({"CUDA_VERSION=12.6.3"}, f);
  EXPECT_EQ(v.met, Tristate::no);
  EXPECT_EQ(v.failed, "cuda>=12.6");
  EXPECT_EQ(judge_cuda_requirements({"CUDA_VERSION=12.4.1"}, f).met, Tristate::yes);
  EXPECT_EQ(judge_cuda_requirements({"CUDA_VERSION=12.6.3", "NVIDIA_DISABLE_REQUIRE=true"}, f).met,
            Tristate::yes);
  EXPECT_EQ(judge_cuda_requirements({}, f).met, Tristate::yes);
  // Without the driver's version nothing is decided.
  EXPECT_EQ(judge_cuda_requirements({"CUDA_VERSION=12.6.3"}, RequireFacts{}).met,
            Tristate::unknown);
}

}  // namespace
}  // namespace anygpu
