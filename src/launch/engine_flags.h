// `--engine-arg` values read the way `podman run` and `docker run` read them (spf13/pflag: long
// flags with `=VALUE` or the next argument as value, short flags grouped as in `-tu0`, a value
// glued to its short flag), so what anygpu checks is what the engine will do.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// One flag as the engine parsed it: its long name (`user` for `-u0`) and its value, if it takes
// one.
struct EngineFlag {
  std::string name;
  std::optional<std::string> value;
  std::string written;  // the argument(s) it came from, for messages
};

// Splits `args` into flags as the engine would, refusing what the engine would read as a
// positional argument (it would become the image), a `--`, an unknown flag and a flag whose value
// would swallow anygpu's own next argument. Only flags in anygpu's table of run flags pass.
Result<std::vector<EngineFlag>> parse_engine_flags(const std::vector<std::string>& args);

// `--engine-arg` values that would widen what the container gets beyond the selection are
// refused: privilege, devices, users and groups, host namespaces, and bind mounts of device,
// kernel or engine-socket paths (anygpu decides those itself), and any `--env` that sets one of
// `protected_env` — the variables anygpu sets in the container and those through which a vendor
// runtime hook adds devices (NVIDIA_VISIBLE_DEVICES=all would undo the selection).
std::optional<Error> check_engine_args(const std::vector<std::string>& args,
                                       const std::vector<std::string>& protected_env = {});

}  // namespace anygpu
