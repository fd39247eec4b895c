// DCMI (Huawei Ascend, libdcmi.so): what anygpu calls, each inside a library worker only.
// The ABI is declared in abi.h from public copies of dcmi_interface_api.h; api.h resolves the
// entry points and lists chips by PCI address. The kernel's facts name Ascend devices; DCMI's
// probe only adds what the kernel does not show: HCCS links between NPUs and vNPU templates.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "host/dynamic_library.h"
#include "vendorlib/entry_points.h"

namespace anygpu::dcmi {

// Discovery (probe.cc): per chip, the chips it reaches over HCCS (dcmi_get_topo_info_by_device_id
// for every pair) and its vNPUs' templates, AI Cores and memory (dcmi_get_device_info, vdev
// management).
void probe(const DynamicLibrary& lib, LibraryResult& result);

// Health (health.cc): each chip's alarm level (dcmi_get_device_health), its fault codes
// (dcmi_get_device_errorcode_v2), its HBM's ECC counts and isolated pages
// (dcmi_get_device_ecc_info) and the processes using its memory (dcmi_get_device_resource_info).
// Returns an error message when DCMI cannot be initialised (no device is emitted then).
std::optional<std::string> read_health(const DynamicLibrary& lib, const HealthEmit& emit);

// Metrics (sampler.cc): AI Core utilization, temperature, power, HBM use and temperature.
std::unique_ptr<LibrarySampler> make_sampler();

}  // namespace anygpu::dcmi
