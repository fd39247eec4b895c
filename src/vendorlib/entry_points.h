// What a vendor library's folder (src/vendorlib/<library>/) hands to the rest of anygpu: the
// facts its probe fills, the health facts its reader emits and the sampler it makes. All of it
// runs only inside a library worker process (src/worker/): a library that crashes, exits or
// prints costs that process, never anygpu.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/inventory.h"
#include "model/library_facts.h"
#include "vendorlib/library_sampler.h"

namespace anygpu {

// One MIG device as NVML lists it, keyed by its GPU and compute instance ids (the ids of the
// driver's capability paths, gi<N>/ci<M>).
struct LibraryMigFacts {
  unsigned gpu_instance = 0, compute_instance = 0;
  std::optional<std::string> uuid, profile;
  std::optional<uint64_t> memory_total_bytes;
};

// One vNPU as DCMI describes it (dcmi_get_device_info, vdev management), keyed by its vdev id
// (the N of /dev/vdavinciN).
struct LibraryVnpuFacts {
  unsigned vdev_id = 0;
  std::optional<std::string> template_name;
  std::optional<double> ai_cores;
  std::optional<uint64_t> memory_total_bytes;
};

struct LibraryDeviceFacts {
  PciAddress address;
  std::optional<std::string> name, uuid, arch;
  std::optional<uint64_t> memory_total_bytes;
  std::vector<LibraryMigFacts> mig;
  std::optional<NvLinkFacts> nvlink;    // NVML only
  std::optional<HccsFacts> hccs;        // DCMI only
  std::optional<XeLinkFacts> xelink;    // Level Zero only
  std::vector<LibraryVnpuFacts> vnpus;  // DCMI only
};

// A probe's answer: the report (status and message filled by the probe), every device the
// library lists, and what it says about the driver and runtimes.
struct LibraryResult {
  LibraryReport report;
  std::vector<LibraryDeviceFacts> devices;
  std::optional<std::string> driver_version;
  std::vector<RuntimeComponent> runtimes;
};

// A health reader hands each device's facts over as soon as it has read them, so a library that
// crashes on a later device costs only that device's facts.
using HealthEmit = std::function<void(const PciAddress&, const health::DeviceLibraryFacts&)>;

}  // namespace anygpu
