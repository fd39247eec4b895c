// NVIDIA_REQUIRE_CUDA and its kin, judged as nvidia-container-cli judges them at container
// start (libnvidia-container src/cli/dsl.c): space-separated terms are ORed, comma-separated
// conditions ANDed, every NVIDIA_REQUIRE_* variable ANDed; an image with only CUDA_VERSION gets
// `cuda>=MAJOR.MINOR`; NVIDIA_DISABLE_REQUIRE turns it all off. Keys: cuda (the driver's CUDA
// version), driver, arch (compute capability), brand. What the host does not tell (a brand)
// makes a condition unknown, never true.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace anygpu {

enum class Tristate { no, unknown, yes };

struct RequireFacts {
  std::optional<std::string> cuda;    // "12.4": the newest CUDA the driver supports
  std::optional<std::string> driver;  // "550.90.07"
  std::optional<std::string> arch;    // "9.0"
  std::optional<std::string> brand;   // "tesla", "geforce"; mostly unknown offline
};

struct RequireVerdict {
  Tristate met = Tristate::yes;
  std::string expression;  // the requirement that is not met (or unknown)
  std::string failed;      // its first unmet condition ("cuda>=12.8")
};

// `env` is config.Env ("NAME=value"). Requirements absent or disabled: met.
RequireVerdict judge_cuda_requirements(const std::vector<std::string>& env,
                                       const RequireFacts& facts);

// One expression (a variable's value).
Tristate evaluate_require(std::string_view expression, const RequireFacts& facts,
                          std::string* first_unmet = nullptr);

}  // namespace anygpu
