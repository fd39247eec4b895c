// Which framework build fits a host: NVIDIA by driver floor and GPU architecture coverage,
// AMD by gfx target and ROCm version, Intel by xpu availability, plugin vendors by their
// published torch pairing, everything else the CPU build.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/inventory.h"
#include "registry/wheel_data.h"
#include "select/select.h"
#include "util/pep440.h"
#include "util/result.h"

namespace anygpu {

struct WheelRequest {
  std::string package = "torch";
  std::optional<std::string> version;  // "2.9", "2.9.1"; absent = newest known release
  std::optional<std::string> vendor;   // decide for this vendor's devices (mixed hosts)
  // A contract's range (`check`): a plugin pairing outside it is not chosen, and without a pin
  // the newest release inside it is.
  std::optional<pep440::SpecifierSet> range;
  // Decide as if the kernel driver ran every build: what an upgrade would open up. A choice the
  // real driver refuses then says what it `needs`.
  bool assume_driver_upgrade = false;
};

struct WheelAlternative {
  std::string variant;
  std::string index_url;
  bool fits = false;
  std::string note;
};

struct WheelChoice {
  std::string package;
  std::string version;    // what to pin, "2.9.1"
  std::string vendor;     // the devices decided for ("none" without accelerators)
  std::string variant;    // cu128, rocm6.4, xpu, cpu, or the plugin package
  std::string index_url;  // empty when no public index is known
  std::string pip, uv;    // empty when no public index is known
  std::string reason;
  std::vector<WheelAlternative> alternatives;
  bool accelerated = false;  // the build drives the devices (false: the CPU build)
  std::string needs;         // under assume_driver_upgrade: the upgrade this build waits for
};

// The newest patch of `release` inside `range` ("2.1.0" of 2.1 for ">=2.1.0,<2.1.1"); nothing
// when no patch up to the table's newest is inside it.
std::optional<std::string> pin_in_range(const TorchRelease& release,
                                        const pep440::SpecifierSet& range);

// Errors: unknown package or version (bad_input, listing the known ones); a requested vendor
// without devices on the host (host).
Result<WheelChoice> choose_wheel(const WheelData& data, const Inventory& inventory,
                                 const WheelRequest& request);

// The vendor whose devices the decision is for: primary_vendor() (select/select.h), the rule
// select, k8s and host-init share.

// Does a build with cubins for `arches` (+ optional PTX) run on `arch` (sm_XY)? A cubin runs
// on its major at an equal or higher minor, PTX on any equal or higher compute capability;
// arch-specific targets (sm_90a) only on exactly theirs.
bool cuda_arch_covered(const std::vector<std::string>& arches,
                       const std::optional<std::string>& ptx, const std::string& arch);

// "+cu124" / cuda "12.4" -> "cu124"; "+rocm6.1" / hip "6.1.40091-…" -> "rocm6.1"; "xpu"; "cpu".
std::string variant_of_build(const std::string& version, const std::optional<std::string>& cuda,
                             const std::optional<std::string>& hip,
                             const std::optional<std::string>& xpu);

}  // namespace anygpu
