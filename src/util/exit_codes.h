// The exit codes anygpu documents, and the one map from an Error to them. The CLI, `run` and
// the C ABI's error documents (exit_code) all take their numbers from here.
#pragma once

#include "util/result.h"

namespace anygpu {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;      // a check failed; also anygpu's own errors
inline constexpr int kExitUsage = 2;            // bad usage or bad input (file:line:column)
inline constexpr int kExitHostLacks = 3;        // the host lacks what was required
inline constexpr int kExitUnitsBusy = 124;      // `run`: the devices are held by other runs
                                                // (as timeout(1)'s 124: --wait ran out)
inline constexpr int kExitRunFailed = 125;      // `run`: anygpu itself failed
inline constexpr int kExitNotExecutable = 126;  // `run`: found, but cannot be executed
inline constexpr int kExitNotFound = 127;       // `run`: not found

constexpr int exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::bad_input:
      return kExitUsage;
    case ErrorKind::host:
      return kExitHostLacks;
    case ErrorKind::internal:
      return kExitCheckFailed;
  }
  return kExitCheckFailed;
}

}  // namespace anygpu
