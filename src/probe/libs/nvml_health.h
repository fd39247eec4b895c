// NVML's health calls, made inside a library worker only (src/worker/serve.cc, mode "health"):
// ECC counters, row remapping, retired pages, clocks-event reasons and running compute
// processes, per device. `emit` receives each device as soon as it is read, so a library that
// crashes on a later device costs only that device's facts.
#pragma once

#include <functional>
#include <string>

#include "model/library_facts.h"
#include "host/dynamic_library.h"
#include "model/inventory.h"

namespace anygpu {

// Returns an error message when NVML cannot be initialised (no device is emitted then).
std::optional<std::string> read_nvml_health(
    const DynamicLibrary& lib,
    const std::function<void(const PciAddress&, const health::DeviceLibraryFacts&)>& emit);

}  // namespace anygpu
