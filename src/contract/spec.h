// runtime-spec.yaml: the contract an experiment states about the host it needs. Parsing is
// strict: unknown keys, wrong types and malformed versions are errors located FILE:LINE:COLUMN.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/pep440.h"
#include "util/result.h"

namespace anygpu {

// One entry of gpu_compute_capability.
struct ArchRequirement {
  enum class Kind {
    nvidia_min,    // sm_80 or 8.0: this compute capability or newer
    nvidia_exact,  // sm_90a: arch-specific features, exactly 9.0
    gfx,           // gfx942: exactly this AMD/Hygon target
    gfx_family,    // gfx94*: any target with this prefix
    exact,         // xe-hpc, ascend910b, …: this arch name exactly
  };
  Kind kind = Kind::exact;
  std::string text;  // as written, lower case
  int major = 0, minor = 0;
  std::string name;  // gfx target / family prefix / exact arch, without features

  static std::optional<ArchRequirement> parse(std::string_view text);
  bool is_nvidia() const { return kind == Kind::nvidia_min || kind == Kind::nvidia_exact; }
  bool is_gfx() const { return kind == Kind::gfx || kind == Kind::gfx_family; }
  // Whether a device arch ("sm_89", "gfx942", "gfx90a:sramecc+:xnack-", "xe-hpc") meets it.
  bool accepts(std::string_view device_arch) const;
  std::string describe() const;  // ">= sm_80", "gfx94*", "xe-hpc"
};

struct Dependency {
  std::string name;  // as written ("pytorch")
  std::string dist;  // normalised distribution name ("torch")
  std::optional<pep440::SpecifierSet> version_range;
  bool vendor_agnostic_wheel = false;
  bool full_distribution = false;
  bool is_torch() const { return dist == "torch"; }
};

struct ContractSpec {
  std::vector<ArchRequirement> compute_capability;  // empty: not required
  std::optional<double> memory_bandwidth_gbps;
  std::optional<std::string> driver_version_min;
  std::vector<std::string> vendors;  // empty: any
  std::optional<int> device_count_min;
  std::optional<double> memory_gb_min;
  std::optional<std::string> kernel_version_min;
  std::vector<Dependency> dependencies;
  std::vector<std::string> order;  // the required_features keys as written

  bool has_gpu_requirements() const {
    return !compute_capability.empty() || memory_bandwidth_gbps || driver_version_min ||
           !vendors.empty() || device_count_min || memory_gb_min;
  }
};

// Parses the contract text; `file` names it in error messages.
Result<ContractSpec> parse_contract(std::string_view text, const std::string& file);
// Reads and parses a contract file (missing or unreadable files are bad_input too).
Result<ContractSpec> load_contract(const std::string& path);

}  // namespace anygpu
