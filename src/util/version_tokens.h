// Version numbers inside free text, found by shape rather than position.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace anygpu {

// The whitespace-delimited tokens shaped like a dotted number ("560.35.03", "535.104") that
// follow `marker` on its line, in order. NVIDIA's open modules print "Kernel Module for x86_64
// 560.35.03", the proprietary ones "Kernel Module  550.90.07": the version is not the first
// token after the marker.
std::vector<std::string> version_tokens_after(std::string_view text, std::string_view marker);

}  // namespace anygpu
