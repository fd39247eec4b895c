// What every probe step shares: the host, the registry, and where warnings go.
#pragma once

#include <string>
#include <vector>

#include "host/host_root.h"
#include "registry/registry.h"

namespace anygpu {

struct ProbeContext {
  const HostRoot& host;
  const Registry& registry;
  std::vector<std::string>& warnings;

  void warn(std::string message) const { warnings.push_back(std::move(message)); }
};

}  // namespace anygpu
