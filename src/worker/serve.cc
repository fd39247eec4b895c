#include "worker/serve.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>

#include "host/host_root.h"
#include "probe/libs/library_probe.h"
#include "util/strings.h"
#include "worker/message.h"
#include "worker/probe_protocol.h"
#include "worker/serve_io.h"

namespace anygpu::worker {

namespace {

// Discovery: every requested library in order, each announced before the worker calls into
// it; after a `loaded` one the vendor's remaining libraries are skipped, as they always were.
void serve_probe() {
  auto block = io::read_block();
  if (!block) ::_exit(2);
  auto request = decode_probe_request(*block);
  if (!request) ::_exit(2);
  HostOptions options;
  options.root = request->root;
  HostRoot host(options);
  io::reply(Writer().header().take());
  std::set<std::string> settled;  // vendors whose search ended
  for (const auto& lib : request->libraries) {
    if (settled.count(lib.vendor)) continue;
    io::reply(encode_begin(lib.vendor, lib.api));
    LibraryResult result = probe_library(host, lib);
    io::reply(encode_library(result, io::take_output()));
    if (ends_search(result)) settled.insert(lib.vendor);
  }
  io::reply(kEndLine);
}

}  // namespace

void serve(int argc, char** argv) {
  // Only Process::spawn starts a worker: fd 3 open, our parent's pid as argv[3].
  if (argc != 4 || ::fcntl(io::kReplyFd, F_GETFD) < 0) {
    std::fputs("anygpu: __worker is internal (the vendor-library worker)\n", stderr);
    ::_exit(2);
  }
  std::string_view mode = argv[2];
  if (mode == "probe") {
    // Spawned and reaped by one thread: when it dies, so do we, whatever the library does.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (std::to_string(::getppid()) != argv[3]) ::_exit(0);
    serve_probe();
  } else {
    ::_exit(2);
  }
  // No static destructors, no library destructors: everything worth saying has been said.
  ::_exit(0);
}

}  // namespace anygpu::worker
