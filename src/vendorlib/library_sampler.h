// The vendor-library half of a metrics backend (NVML, Level Zero Sysman, DCMI), run only inside
// a library worker process (`anygpu __worker sample`, src/metrics/sample_serve.cc). It sees PCI
// addresses and answers values and warnings; the parent adds identity and the kernel's facts.
#pragma once

#include <memory>
#include <vector>

#include "host/dynamic_library.h"
#include "model/device_sample.h"
#include "model/inventory.h"
#include "util/result.h"

namespace anygpu {

struct SampleTarget {
  PciAddress address;
  bool suspended = false;  // never touched: answered with no values
};

class LibrarySampler {
 public:
  virtual ~LibrarySampler() = default;
  // Resolves the symbols and initialises the library (the caller keeps it loaded).
  virtual Result<bool> open(const DynamicLibrary& lib) = 0;
  // One sample per target, in order: the values the library gives, and warnings naming the
  // calls that failed.
  virtual std::vector<DeviceSample> sample(const std::vector<SampleTarget>& targets) = 0;
};

}  // namespace anygpu
