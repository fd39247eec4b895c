// What every probe step shares: the host, the registry, and where warnings go.
#pragma once

#include <cerrno>
#include <optional>
#include <string>

#include "host/host_root.h"
#include "registry/registry.h"
#include "util/diagnostics.h"
#include "util/strings.h"

namespace anygpu {

struct ProbeContext {
  const HostRoot& host;
  const Registry& registry;
  Diagnostics& diagnostics;

  // Messages carry file and directory names from the host: never their control characters.
  void warn(std::string_view where, std::string_view message) const {
    diagnostics.warn(escape_control(where), escape_control(message));
  }
  // A message that names its path already (HostRoot's errors do).
  void warn(std::string_view message) const { warn({}, message); }

  // A value that may legitimately be absent; a file that is there but unusable (empty,
  // binary, oversized, a directory or FIFO, unreadable) becomes a warning naming its path.
  std::optional<std::string> optional_value(std::string_view path) const {
    auto v = host.read_value(path);
    if (v) return std::move(*v);
    if (v.error().sys_errno != ENOENT && v.error().sys_errno != ENOTDIR) warn(v.error().message);
    return std::nullopt;
  }
};

}  // namespace anygpu
