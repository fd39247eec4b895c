// Driver libraries whose real file names carry the kernel module's version, as the registry's
// `container.driver_files.library_patterns` say ("*.so.{driver_version}": libcuda.so.550.90.07).
// CDI spec judgement and doctor read versions back out of file names with the same shapes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.h"

namespace anygpu {

// The literal around `{driver_version}` after a pattern's last '*': {".so.", ""}.
struct DriverVersionShape {
  std::string before, after;
};

std::vector<DriverVersionShape> driver_version_shapes(const Vendor& vendor);

// "550.90.07": digits and dots, at least one dot, none at either end.
bool is_numeric_dotted_version(std::string_view v);

// The version a file name carries after `stem` in `shape` ("libcuda.so.560.35.03", "libcuda"
// -> "560.35.03"); nullopt when the name has another shape or no dotted version there.
std::optional<std::string> driver_version_in(std::string_view file_name, std::string_view stem,
                                             const DriverVersionShape& shape);

// "libnvidia-ml.so.1" -> "libnvidia-ml": the name before its first ".so".
std::string library_stem(std::string_view soname);

}  // namespace anygpu
