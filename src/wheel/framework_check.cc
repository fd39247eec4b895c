// Placeholder until the wheel capability lands.
#include "wheel/framework_check.h"

namespace anygpu {
std::vector<Finding> framework_build_findings(const HostRoot&, const Inventory&,
                                              const std::string&) {
  return {};
}
}  // namespace anygpu
