// The OCI hooks anygpu's CDI specs name (`anygpu cdi hook …`), run by the container runtime as
// createContainer hooks: in the container's mount namespace, before pivot_root, with the
// container state (OCI runtime spec, "State") on stdin. Everything they write lies beneath the
// container's root and is reached without following a link out of it.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// The container's root directory from the state a runtime passes a hook: `bundle` from the
// state JSON, then `root.path` from the bundle's config.json (relative to the bundle unless
// absolute). `read_config` reads a file (the bundle's config.json). Errors name the input.
Result<std::string> oci_container_root(
    std::string_view state_json,
    const std::function<Result<std::string>(const std::string&)>& read_config);

// The name of the loader configuration file the update-ldcache hook writes.
inline constexpr std::string_view kLdConfFile = "/etc/ld.so.conf.d/00-anygpu-driver.conf";

// How long ldconfig may take. A CDI hook has no timeout of its own (the runtime waits), and
// ldconfig over a large image takes well under a second.
inline constexpr std::chrono::milliseconds kLdconfigTimeout{30000};

// Lists `folders` (container paths) in kLdConfFile and rebuilds the container's
// /etc/ld.so.cache with `ldconfig -r ROOT` (the executable `ldconfig`), which chroots into
// the root. An ldconfig that has not finished within `timeout` is killed with everything it
// started, and that is an error naming the command.
Result<bool> update_container_ldcache(const std::string& root,
                                      const std::vector<std::string>& folders,
                                      const std::string& ldconfig,
                                      std::chrono::milliseconds timeout = kLdconfigTimeout);

// Creates /dev/char/MAJOR:MINOR -> ../NAME in the container for each character device directly
// in its /dev and /dev/dri, as udev does on a host (libraries resolve nodes through them).
// Returns how many links were made.
Result<int> create_dev_char_links(const std::string& root);

// The first executable ldconfig of the runtime's namespace.
std::optional<std::string> find_ldconfig();

}  // namespace anygpu
