// CDI name rules (container-device-interface pkg/parser): kind "vendor/class" where vendor and
// class start with a letter, end with a letter or digit and hold letters, digits, '_', '-',
// '.'; a device name starts and ends with a letter or digit and may also hold '_', '-', '.',
// ':' (so a PCI bus id "0000:18:00.0" and a "GPU-<uuid>" are valid names).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace anygpu {

// Why `kind` is not a valid CDI kind, or nothing when it is.
std::optional<std::string> kind_error(std::string_view kind);
std::optional<std::string> device_name_error(std::string_view name);

}  // namespace anygpu
