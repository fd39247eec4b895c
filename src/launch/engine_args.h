// Values that reach a container engine's argv: built so the engine parses back exactly what was
// meant, and checked so nothing a user typed turns into a different flag or more privilege.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "container/container_edits.h"
#include "util/result.h"

namespace anygpu {

// `type=bind,src=…,dst=…[,ro]` for `--mount`. Docker and Podman split the value as one CSV
// record, so a field holding ',' or '"' is quoted with '"' and inner quotes doubled.
std::string bind_mount_arg(const MountEdit& mount);

// An image reference by the grammar of distribution/reference (the one Docker and Podman
// parse): [domain[:port]/]path[:tag][@digest], lower-case path components, at most 255
// characters of name. Each check returns the error (bad_input naming the flag), or nothing when the
// value is fine.
std::optional<Error> check_image_reference(std::string_view ref, std::string_view flag);

// `--user`: NAME|UID[:GROUP|GID] (POSIX portable names, no leading '-').
std::optional<Error> check_container_user(std::string_view user, std::string_view flag);

// `--shm-size`: a positive number with an optional unit b, k, m or g (either case).
std::optional<Error> check_shm_size(std::string_view size, std::string_view flag);

}  // namespace anygpu
