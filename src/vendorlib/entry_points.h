// What a vendor library's folder (src/vendorlib/<library>/) hands to the rest of anygpu: the
// facts its probe fills and the sampler it makes. All of it runs only inside a library worker
// process (src/worker/): a library that crashes, exits or prints costs that process, never
// anygpu.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/inventory.h"

namespace anygpu {

struct LibraryDeviceFacts {
  PciAddress address;
  std::optional<std::string> name, uuid, arch;
  std::optional<uint64_t> memory_total_bytes;
};

// A probe's answer: the report (status and message filled by the probe), every device the
// library lists, and what it says about the driver and runtimes.
struct LibraryResult {
  LibraryReport report;
  std::vector<LibraryDeviceFacts> devices;
  std::optional<std::string> driver_version;
  std::vector<RuntimeComponent> runtimes;
};

}  // namespace anygpu
