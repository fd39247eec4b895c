// What a host without a usable accelerator runs on: torch's CPU device, gloo between
// processes. `select` falls back to it; the Python package's device table ends with it.
#pragma once

#include <string_view>

namespace anygpu {

inline constexpr std::string_view kCpuTorchDevice = "cpu";
inline constexpr std::string_view kCpuDistBackend = "gloo";

}  // namespace anygpu
