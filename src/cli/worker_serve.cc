#include "cli/worker_serve.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>

#include "health/health_protocol.h"
#include "host/host_root.h"
#include "metrics/sample_serve.h"
#include "probe/libs/library_probe.h"
#include "probe/libs/probe_protocol.h"
#include "util/strings.h"
#include "vendorlib/apis.h"
#include "worker/message.h"
#include "worker/serve_io.h"

namespace anygpu::worker {

namespace {

// The parent's request; a worker that cannot read one has nothing to answer.
ProbeRequest read_request() {
  auto block = io::read_block();
  if (!block) ::_exit(2);
  auto request = decode_probe_request(*block);
  if (!request) ::_exit(2);
  return std::move(*request);
}

HostOptions host_options(const ProbeRequest& request) {
  HostOptions options;
  options.root = request.root;
  return options;
}

// Discovery: every requested library in order, each announced before the worker calls into
// it; after a `loaded` one the vendor's remaining libraries are skipped, as they always were.
void serve_probe() {
  auto request = read_request();
  HostRoot host(host_options(request));
  io::reply(Writer().header().take());
  std::set<std::string> settled;  // vendors whose search ended
  for (const auto& lib : request.libraries) {
    if (settled.count(lib.vendor)) continue;
    io::reply(encode_begin(lib.vendor, lib.api));
    LibraryResult result = probe_library(host, lib);
    io::reply(encode_library(result, io::take_output()));
    if (ends_search(result)) settled.insert(lib.vendor);
  }
  io::reply(kEndLine);
}

// Health: the first library of the request that loads and has a health reader in the table of
// library APIs (NVML, or a library that speaks it: ixml; DCMI; Level Zero Sysman) is asked for
// every device's health facts, each device sent as soon as it is read.
void serve_health() {
  auto request = read_request();
  HostRoot host(host_options(request));
  io::reply(Writer().header().take());
  std::optional<std::string> last_error;
  for (const auto& lib : request.libraries) {
    const LibraryApi* api = find_library_api(lib.api);
    if (!api || !api->health) continue;
    std::vector<std::string_view> sonames(lib.sonames.begin(), lib.sonames.end());
    std::vector<std::string_view> dirs(lib.dirs.begin(), lib.dirs.end());
    auto opened = host.open_library(sonames, dirs);
    if (!opened) {
      // Not installed is not a fault: only a library that is there and fails is reported.
      if (host.find_library(sonames, dirs)) last_error = opened.error().message;
      continue;
    }
    bool announced = false;
    auto emit = [&](const PciAddress& a, const health::DeviceLibraryFacts& facts) {
      if (!announced) io::reply(encode_health_status(lib.vendor, lib.api, std::nullopt));
      announced = true;
      io::reply(encode_health_device(a.str(), facts));
    };
    auto failed = api->health(**opened, emit);
    if (failed) {
      last_error = failed;
      continue;
    }
    if (!announced) io::reply(encode_health_status(lib.vendor, lib.api, std::nullopt));
    io::reply(kEndLine);
    return;
  }
  if (last_error && !request.libraries.empty()) {
    const auto& first = request.libraries.front();
    io::reply(encode_health_status(first.vendor, first.api, last_error));
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
  } else if (mode == "health") {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (std::to_string(::getppid()) != argv[3]) ::_exit(0);
    serve_health();
  } else if (mode == "sample") {
    // Long-lived, spawned by whichever collector thread first sampled: no PDEATHSIG (that
    // follows the spawning thread). It ends on EOF of its request channel, which the kernel
    // delivers when the parent dies, and its alarm bounds a hung library call.
    if (std::to_string(::getppid()) != argv[3]) ::_exit(0);
    serve_sample();
  } else {
    ::_exit(2);
  }
  // No static destructors, no library destructors: everything worth saying has been said.
  ::_exit(0);
}

}  // namespace anygpu::worker
