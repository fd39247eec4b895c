// The one validation of host options (root, vendor libraries, library deadline), shared by the
// CLI, the C ABI and the Python package (which passes its arguments to the C ABI).
#pragma once

#include <optional>
#include <string>

#include "host/host_root.h"

namespace anygpu {

inline constexpr long long kMaxLibraryTimeoutMs = 600000;

// What a caller asked for before validation: CLI flags, or the C ABI's option keys. Absent:
// the environment (ANYGPU_ROOT, ANYGPU_NO_LIBS, ANYGPU_LIB_TIMEOUT_MS), then the defaults.
struct HostOptionRequest {
  enum class Spelling { cli, json };  // names in messages: "--root" or "root"
  Spelling spelling = Spelling::cli;
  std::optional<std::string> root;
  std::optional<bool> no_libs;
  std::optional<long long> lib_timeout_ms;
};

// Flags over environment over defaults. An empty root, a root that is not a directory, a
// timeout outside 1..600000 ms are bad_input naming the option; the variables are judged by
// the table of environment variables (util/env_vars.h), whether or not a flag overrides them.
Result<HostOptions> resolve_host_options(const HostOptionRequest& request);

}  // namespace anygpu
