// The command after `--`, exactly as this process received it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace anygpu {

// The arguments after the first "--" that follows `subcommand` in `argv`; nullopt without one.
std::optional<std::vector<std::string>> command_after_marker(const std::vector<std::string>& argv,
                                                             std::string_view subcommand);

// This process's argv (from the kernel's copy); empty when unreadable.
std::vector<std::string> own_argv();

}  // namespace anygpu
