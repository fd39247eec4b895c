// A device architecture, parsed once: NVIDIA compute capabilities (`sm_90`, `sm_90a`,
// `sm_100f`), AMD/Hygon gfx targets (`gfx942`, `gfx90a:sramecc+:xnack-`) and every other
// vendor's own name (`xe-hpc`, `ascend910b`). check, select and wheel all read arches here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace anygpu {

struct Arch {
  enum class Family { nvidia, gfx, other };
  Family family = Family::other;
  std::string name;  // lower case, without gfx target features: "sm_90a", "gfx90a", "xe-hpc"
  int major = 0;     // nvidia: compute capability major.minor (sm_120 = 12.0)
  int minor = 0;
  char variant = 0;  // nvidia: 'a' (sm_90a) or 'f' (sm_100f) feature sets; 0 otherwise

  // nullopt for text that is no architecture name (empty, spaces, "sm_x", "gfxzz", …).
  static std::optional<Arch> parse(std::string_view text);
  bool is_nvidia() const { return family == Family::nvidia; }
  bool is_gfx() const { return family == Family::gfx; }
  // sm_XY as one number: 10 * major + minor (sm_90 -> 90, sm_120 -> 120); ordered as CUDA is.
  int sm() const { return major * 10 + minor; }
};

}  // namespace anygpu
