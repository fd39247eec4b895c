// Level Zero Sysman (libze_loader.so.1, zesInit from spec 1.5): what anygpu calls, each inside
// a library worker only. The ABI is declared in abi.h (tests/unit/abi_layout_test.cc compares
// it with Debian's libze-dev); api.h resolves the entry points and lists devices by PCI address.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "host/dynamic_library.h"
#include "vendorlib/entry_points.h"

namespace anygpu::ze {

// Discovery: model name and driver version per device (probe.cc).
void probe(const DynamicLibrary& lib, LibraryResult& result);

// Health (health.cc): each device's memory health (zesMemoryGetState's `health`, the worst of
// its modules) and its RAS error counts (zesRasGetState over every error set, without
// clearing). Returns an error message when Sysman cannot be initialised (no device is emitted
// then).
std::optional<std::string> read_health(const DynamicLibrary& lib, const HealthEmit& emit);

// Metrics (sampler.cc): engine utilization from two activity snapshots, device memory.
std::unique_ptr<LibrarySampler> make_sampler();

}  // namespace anygpu::ze
