#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace anygpu {

// Kernel and library strings are not guaranteed UTF-8: invalid bytes become U+FFFD instead of
// aborting the whole document.
inline std::string dump_json(const nlohmann::ordered_json& j, bool pretty = true) {
  return j.dump(pretty ? 2 : -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace anygpu
