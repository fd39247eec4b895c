// A connection to a Unix stream socket beneath the host root (the kubelet's pod-resources
// socket, for one).
#pragma once

#include <string_view>

#include "host/host_root.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu {

// The path resolves beneath the root (links inside it too); its last component is opened
// without following a link and must be a socket; the connection is made through that
// descriptor (/proc/self/fd/N), so no link planted meanwhile is followed and sun_path's
// 108-byte limit does not apply. The socket is non-blocking and close-on-exec.
Result<UniqueFd> connect_unix_socket(const HostRoot& host, std::string_view path);

}  // namespace anygpu
