#include "container/driver_version.h"

#include <algorithm>

namespace anygpu {

std::vector<DriverVersionShape> driver_version_shapes(const Vendor& vendor) {
  constexpr std::string_view kPlaceholder = "{driver_version}";
  std::vector<DriverVersionShape> out;
  for (auto p : vendor.container.driver_files.library_patterns) {
    auto at = p.find(kPlaceholder);
    if (at == std::string_view::npos) continue;
    auto star = p.rfind('*', at);
    auto from = star == std::string_view::npos ? 0 : star + 1;
    out.push_back(
        {std::string(p.substr(from, at - from)), std::string(p.substr(at + kPlaceholder.size()))});
  }
  return out;
}

bool is_numeric_dotted_version(std::string_view v) {
  if (v.empty() || v.front() == '.' || v.back() == '.' || v.find('.') == std::string_view::npos)
    return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

std::optional<std::string> driver_version_in(std::string_view name, std::string_view stem,
                                             const DriverVersionShape& shape) {
  auto head = std::string(stem) + shape.before;
  if (name.size() <= head.size() + shape.after.size() || !name.starts_with(head) ||
      !name.ends_with(shape.after))
    return std::nullopt;
  auto version = name.substr(head.size(), name.size() - head.size() - shape.after.size());
  if (!is_numeric_dotted_version(version)) return std::nullopt;
  return std::string(version);
}

std::string library_stem(std::string_view soname) {
  return std::string(soname.substr(0, soname.find(".so")));
}

}  // namespace anygpu
