// Placeholder until the CDI capability lands.
#include "cdi/cdi.h"

namespace anygpu {
Result<std::vector<CdiSpec>> read_cdi_specs(const HostRoot&) {
  return std::vector<CdiSpec>{};
}
std::optional<std::vector<std::string>> cdi_names_for(const std::vector<CdiSpec>&,
                                                      const std::vector<Device>&,
                                                      const Registry&) {
  return std::nullopt;
}
Result<std::string> generate_cdi_spec(const Inventory&, const std::string&,
                                      const CdiGenerateOptions&, const Registry&) {
  return internal_error("generate_cdi_spec: not built yet");
}
}  // namespace anygpu
