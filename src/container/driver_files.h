// The host's driver user space for a container: the files of the registry's
// `container.driver_files`
// (libraries, management tools, firmware, IPC sockets, configuration) resolved on the host the
// way its loader sees them, as read-only bind mounts plus the folders the container's loader
// cache must list. Only what exists is returned; suspicious host state is left out with a
// warning, never followed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "registry/registry.h"

namespace anygpu {

enum class DriverFileKind { library, tool, firmware, socket, config };
std::string_view driver_file_kind_name(DriverFileKind kind);

struct DriverMount {
  std::string host_path;       // the real file as the host sees it (driver root included)
  std::string container_path;  // where the container sees it (a soname link's own path)
  DriverFileKind kind = DriverFileKind::library;
};

struct DriverFiles {
  std::vector<DriverMount> mounts;      // unique container paths, sorted (parents first)
  std::vector<std::string> ld_folders;  // container directories holding mounted libraries
  std::vector<std::string> warnings;    // what was found but left out, and why
};

struct DriverFilesOptions {
  // Where the driver is installed, as the host sees it: "/" or e.g. "/run/nvidia/driver" (a
  // driver container). Files are found beneath it and mounted without it in the container.
  std::string driver_root = "/";
  // The bound kernel driver's version, for `{driver_version}` in the registry's patterns.
  std::optional<std::string> driver_version;
};

DriverFiles resolve_driver_files(const HostRoot& host, const Vendor& vendor,
                                 const DriverFilesOptions& options);

}  // namespace anygpu
