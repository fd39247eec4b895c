// Vendor management libraries, loaded at run time (no SDK at build time) and probed through
// the table of library APIs (vendorlib/apis.h); results are plain facts keyed by PCI address,
// merged into the inventory by the caller. probe_library runs only inside a library worker
// process (src/worker/): a library that crashes, exits or prints costs that process, never
// anygpu.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/dynamic_library.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "vendorlib/entry_points.h"

namespace anygpu {

// One registry library entry of one vendor, as the worker receives it.
struct LibraryRequest {
  std::string vendor, api;
  std::vector<std::string> sonames, dirs;
};
LibraryRequest library_request(const Vendor& vendor, const LibrarySpec& spec);

// Loads and queries one library (in the worker). A library we only locate (no typed table
// yet) is reported as "found".
LibraryResult probe_library(const HostRoot& host, const LibraryRequest& request);

// The parent's cheap check, without loading anything: under --root a library that is nowhere
// beneath the root is `missing` (the same verdict and message probe_library would give).
// At the real root the system loader's own search decides, so only the worker can tell.
std::optional<LibraryResult> missing_without_loading(const HostRoot& host,
                                                     const LibraryRequest& request);

// True for an API whose probe is complete enough that a `loaded` result ends the search
// through that vendor's remaining libraries.
bool ends_search(const LibraryResult& result);

}  // namespace anygpu
