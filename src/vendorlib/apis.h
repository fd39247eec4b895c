// The vendor management libraries anygpu knows: one row per registry API (data/vendors.yaml,
// `libraries[].api`), naming the symbol that proves a file is that library and the entry points
// of its folder (src/vendorlib/<library>/) that serve discovery, health and metrics. Every
// caller consults this table: the probe's worker mode (probe/libs/library_probe.cc), the health
// reader's (cli/worker_serve.cc, health/), the metrics backends and the sampler worker
// (metrics/backends.cc, metrics/sample_serve.cc). An API without a row is located and reported,
// never called.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "host/dynamic_library.h"
#include "vendorlib/entry_points.h"

namespace anygpu {

// Given the loaded library: a probe fills `result.report`'s status and message and the facts.
using LibraryProbe = void (*)(const DynamicLibrary&, LibraryResult&);
using HealthReader = std::optional<std::string> (*)(const DynamicLibrary&, const HealthEmit&);
using SamplerFactory = std::unique_ptr<LibrarySampler> (*)();

// How a library's values meet the kernel's in one device's sample.
enum class MergeRule {
  library_wins,  // the library's value replaces the kernel's (NVML, DCMI)
  // The library only fills what the kernel left absent (Level Zero); rows of one merge group
  // (metrics/schema.h: memory used and total) only when the kernel gave none of them.
  fill_absent,
};

struct LibraryApi {
  std::string_view api;              // the registry's libraries[].api
  std::string_view init_symbol;      // proves the file is the library it claims to be; empty: none
  LibraryProbe probe = nullptr;      // null: located and checked, not called
  HealthReader health = nullptr;     // null: no health facts
  SamplerFactory sampler = nullptr;  // null: the kernel's metrics only
  MergeRule merge = MergeRule::library_wins;  // how the sampler's values meet the kernel's
  // The kernel's metrics are read too, and stand alone while the library is down (Level Zero,
  // DCMI); otherwise the library is the vendor's one source and is retried when it cannot init.
  bool adds_to_kernel = false;
};

std::span<const LibraryApi> library_apis();

// The row of `api`; null for an API anygpu does not know.
const LibraryApi* find_library_api(std::string_view api);

// Whether a library of `api` answers health and process calls in a worker (mode "health").
bool answers_health(std::string_view api);

}  // namespace anygpu
