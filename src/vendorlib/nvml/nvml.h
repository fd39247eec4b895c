// NVML (libnvidia-ml.so.1) and the libraries that export its names and types (Iluvatar's
// libixml): what anygpu calls, each inside a library worker only. The ABI is declared in abi.h,
// health_abi.h and metrics_abi.h (no SDK at build time); api.h resolves the entry points every
// caller needs.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "host/dynamic_library.h"
#include "vendorlib/entry_points.h"

namespace anygpu::nvml {

// Discovery: name, UUID, memory and compute capability per device, the driver and CUDA
// versions (probe.cc).
void probe(const DynamicLibrary& lib, LibraryResult& result);

// Health (health.cc): ECC counters, row remapping, retired pages, clocks-event reasons and
// running compute processes, per device. Returns an error message when NVML cannot be
// initialised (no device is emitted then).
std::optional<std::string> read_health(const DynamicLibrary& lib, const HealthEmit& emit);

// Metrics (sampler.cc): utilization, memory, temperature, power and its limit, energy, clocks.
std::unique_ptr<LibrarySampler> make_sampler();

}  // namespace anygpu::nvml
