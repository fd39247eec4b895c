// A metrics backend's vendor library, reached through a long-lived library worker
// (src/metrics/remote_sampler.h), with the rules every such backend shares:
//   - nothing is loaded with --no-libs, nor when none of the vendor's devices is awake (a
//     library's init opens every device and resumes a runtime-suspended one), nor when the
//     library is nowhere beneath --root;
//   - nothing is asked once the host tree the devices came from is gone;
//   - a worker that failed is restarted with backoff, and counted.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "metrics/backend.h"
#include "metrics/remote_sampler.h"
#include "probe/libs/library_probe.h"
#include "registry/registry.h"

namespace anygpu {

// Values and warnings of `from` into `into` (identity untouched).
void merge_library_values(DeviceSample& into, DeviceSample&& from, MergeRule rule);

class RemoteLibrary {
 public:
  // `optional`: a library that loads but cannot be initialised is not asked again (Level Zero,
  // DCMI add to the kernel's facts); otherwise it is retried after the backoff (NVML).
  RemoteLibrary(HostRoot host, const LibrarySpec& library, const std::vector<Device>& devices,
                bool optional = false);

  enum class Answer {
    sampled,  // `samples`: one value-only sample per device, in order
    asleep,   // every device is runtime-suspended: nothing was loaded or asked
    down,     // `message` says why (missing, init failed, crashed, waiting to restart)
  };
  struct Outcome {
    Answer answer = Answer::down;
    std::vector<DeviceSample> samples;
    std::string message;
  };
  Outcome sample();
  LibraryWorkerStatus status() const;
  const std::string& api() const { return api_; }

 private:
  HostRoot host_;
  std::string api_;
  std::vector<Device> devices_;
  bool optional_ = false;
  LibraryRequest request_;               // for the cheap "not beneath --root" check
  std::optional<std::string> unusable_;  // an optional library that loaded but cannot init
  std::unique_ptr<worker::RemoteSampler> remote_;
};

}  // namespace anygpu
