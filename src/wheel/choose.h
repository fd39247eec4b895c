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
#include "util/result.h"

namespace anygpu {

struct WheelRequest {
  std::string package = "torch";
  std::optional<std::string> version;  // "2.9", "2.9.1"; absent = newest known release
  std::optional<std::string> vendor;   // decide for this vendor's devices (mixed hosts)
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
};

// Errors: unknown package or version (bad_input, listing the known ones); a requested vendor
// without devices on the host (host).
Result<WheelChoice> choose_wheel(const WheelData& data, const Inventory& inventory,
                                 const WheelRequest& request);

// What `anygpu wheel` installs in place of the installed torch `installed` ("2.5.1+cu121"):
// that release when the table knows it, else the newest; for `vendor`'s devices when given.
// Nothing when the choice fails or no public index serves it. Shared by `check` and doctor.
std::optional<WheelChoice> choose_replacement(const WheelData& data, const Inventory& inventory,
                                              std::string_view installed,
                                              std::optional<std::string> vendor = {});

// The vendor whose devices the decision is for: primary_vendor() (select/select.h), the rule
// select, k8s and host-init share.

// Does a build with cubins for `arches` (+ optional PTX) run on `arch` (sm_XY)?
bool cuda_arch_covered(const std::vector<std::string>& arches,
                       const std::optional<std::string>& ptx, const std::string& arch);

// "+cu124" / cuda "12.4" -> "cu124"; "+rocm6.1" / hip "6.1.40091-…" -> "rocm6.1"; "xpu"; "cpu".
std::string variant_of_build(const std::string& version, const std::optional<std::string>& cuda,
                             const std::optional<std::string>& hip,
                             const std::optional<std::string>& xpu);

}  // namespace anygpu
