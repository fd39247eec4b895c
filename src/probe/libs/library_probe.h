// Vendor management libraries, loaded at run time (no SDK at build time). Each API has a typed
// table of the few symbols we use; results are plain facts keyed by PCI address, merged into
// the inventory by the caller. Runs on a worker thread: it owns copies of all it touches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/dynamic_library.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

struct LibraryDeviceFacts {
  PciAddress address;
  std::optional<std::string> name, uuid, arch;
  std::optional<uint64_t> memory_total_bytes;
};

struct LibraryResult {
  LibraryReport report;
  std::vector<LibraryDeviceFacts> devices;
  std::optional<std::string> driver_version;
  std::vector<RuntimeComponent> runtimes;
};

// Probes the vendor's libraries in registry order. A library we only locate (no typed table
// yet) is reported as "found"; the first fully supported one that loads ends the search.
std::vector<LibraryResult> probe_vendor_libraries(const HostRoot& host, const Vendor& vendor);

// Per-API probes, given a loaded library. Fill `result.report.status` and `message`.
void probe_nvml(const DynamicLibrary& lib, LibraryResult& result);
void probe_rocm_smi(const DynamicLibrary& lib, LibraryResult& result);
void probe_level_zero(const DynamicLibrary& lib, LibraryResult& result);

}  // namespace anygpu
