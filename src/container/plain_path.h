// Paths that come from places a container or a host's files control (a cache entry, a bundle
// path, a hook argument): absolute, no "." or ".." component, no line break.
#pragma once

#include <string_view>

#include "util/strings.h"

namespace anygpu {

inline bool is_plain_absolute_path(std::string_view p) {
  if (p.empty() || p[0] != '/' || p.find_first_of("\n\r") != std::string_view::npos) return false;
  for (auto part : split(p.substr(1), '/'))
    if (part == "." || part == "..") return false;
  return true;
}

}  // namespace anygpu
