// The worker's metrics mode: load and initialise one library, then answer `sample` lines until
// the parent closes the request channel (EOF ends the worker). An alarm bounds every library
// call, so a worker whose parent died while the library hung does not live on; the parent
// kills it far sooner, at its own deadline.
#include <unistd.h>

#include "host/host_root.h"
#include "metrics/sample_protocol.h"
#include "metrics/sample_serve.h"
#include "vendorlib/apis.h"
#include "worker/serve_io.h"

namespace anygpu::worker {

namespace {

struct Alarm {
  explicit Alarm(std::chrono::milliseconds timeout) {
    ::alarm(static_cast<unsigned>(timeout.count() / 1000 + 2));
  }
  ~Alarm() { ::alarm(0); }
};

}  // namespace

void serve_sample() {
  auto block = io::read_block();
  if (!block) ::_exit(2);
  auto setup = decode_sampler_setup(*block);
  if (!setup) ::_exit(2);
  const LibraryApi* api = find_library_api(setup->api);
  auto sampler = api && api->sampler ? api->sampler() : nullptr;
  if (!sampler) {
    io::reply(encode_failed("no sampler for " + setup->api));
    return;
  }
  HostOptions options;
  options.root = setup->root;
  HostRoot host(options);
  std::vector<std::string_view> sonames(setup->sonames.begin(), setup->sonames.end());
  std::vector<std::string_view> dirs(setup->dirs.begin(), setup->dirs.end());
  std::shared_ptr<DynamicLibrary> lib;  // kept loaded for the worker's life
  {
    Alarm alarm(setup->timeout);
    auto opened = host.open_library(sonames, dirs);
    if (!opened) {
      io::reply(encode_failed(opened.error().message));
      return;
    }
    lib = *opened;
    if (auto ready = sampler->open(*lib); !ready) {
      io::reply(encode_failed(ready.error().message));
      return;
    }
  }
  io::take_output();  // what init printed is not a sample's
  io::reply(encode_ready());
  while (auto line = io::read_line()) {
    if (*line != kSampleLine) ::_exit(2);
    std::vector<DeviceSample> samples;
    {
      Alarm alarm(setup->timeout);
      samples = sampler->sample(setup->targets);
    }
    io::reply(encode_samples(setup->targets, samples, io::take_output()));
  }
}

}  // namespace anygpu::worker
