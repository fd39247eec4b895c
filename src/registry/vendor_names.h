// The short vendor name messages use ("NVIDIA", "Huawei Ascend"): the registry's display_name,
// else the id itself (a vendor the registry does not know).
#pragma once

#include <string>
#include <string_view>

#include "registry/registry.h"

namespace anygpu {

inline std::string vendor_display_name(std::string_view id,
                                       const Registry& registry = Registry::builtin()) {
  const Vendor* v = registry.vendor(id);
  return std::string(v ? v->display_name : id);
}

}  // namespace anygpu
