// DCMI's health calls, made inside a library worker only (src/worker/serve.cc, mode "health"):
// each chip's alarm level (dcmi_get_device_health), its fault codes
// (dcmi_get_device_errorcode_v2), its HBM's ECC counts and isolated pages
// (dcmi_get_device_ecc_info) and the processes using its memory (dcmi_get_device_resource_info).
// `emit` receives each device as soon as it is read, so a library that crashes on a later chip
// costs only that chip's facts.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "model/library_facts.h"
#include "host/dynamic_library.h"
#include "model/inventory.h"

namespace anygpu {

// Returns an error message when DCMI cannot be initialised (no device is emitted then).
std::optional<std::string> read_dcmi_health(
    const DynamicLibrary& lib,
    const std::function<void(const PciAddress&, const health::DeviceLibraryFacts&)>& emit);

}  // namespace anygpu
