#include "cdi/cdi_version.h"

#include <algorithm>
#include <iterator>

namespace anygpu {

namespace {
int position(std::string_view v) {
  auto it = std::find(std::begin(kCdiVersions), std::end(kCdiVersions), v);
  return it == std::end(kCdiVersions) ? -1 : static_cast<int>(it - std::begin(kCdiVersions));
}
}  // namespace

bool is_known_cdi_version(std::string_view version) {
  return position(version) >= 0;
}

int compare_cdi_versions(std::string_view a, std::string_view b) {
  int pa = position(a), pb = position(b);
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

std::string minimum_cdi_version(const CdiFeatures& f) {
  if (f.additional_gids || f.intel_rdt) return "0.7.0";
  if (f.annotations || f.class_with_dot) return "0.6.0";
  if (f.host_path || f.name_starts_nonletter) return "0.5.0";
  if (f.mount_type) return "0.4.0";
  return "0.3.0";
}

}  // namespace anygpu
