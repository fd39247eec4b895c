// Level Zero Sysman's entry points resolved from a loaded loader, and its devices by PCI
// address: shared by the metrics sampler and the health reader, both inside a library worker
// only. Needs zesInit (spec >= 1.5); an older loader's Sysman needs ZES_ENABLE_SYSMAN=1 before
// zeInit, which a worker serving other callers cannot promise.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/dynamic_library.h"
#include "vendorlib/bus_key.h"
#include "vendorlib/level_zero/abi.h"

namespace anygpu::ze {

struct Api {
  explicit Api(const DynamicLibrary& lib);
  InitFn init;
  DriverGetFn drivers;
  DeviceGetFn devices;
  PciPropertiesFn pci;
  EnumEnginesFn engines;
  EnginePropertiesFn engine_props;
  EngineActivityFn activity;
  EnumMemoryFn memories;
  MemoryStateFn mem_state;
  EnumRasFn ras_sets;
  RasPropertiesFn ras_props;
  RasStateFn ras_state;

  // zesInit, the driver and device lists and the PCI address: what every reader needs.
  bool usable() const { return init && drivers && devices && pci; }
};

using anygpu::BusKey;

// Level Zero's two-call enumeration: the count, then the handles (bounded against garbage).
template <class H, class Fn, class P>
std::vector<H> enumerate(Fn fn, P parent) {
  uint32_t n = 0;
  if (!fn || fn(parent, &n, nullptr) != kSuccess || n == 0 || n > 4096) return {};
  std::vector<H> out(n);
  if (fn(parent, &n, out.data()) != kSuccess) return {};
  out.resize(std::min<size_t>(n, out.size()));
  return out;
}

// Resolves nothing new: checks the entry points every reader needs and calls zesInit. The
// error says which is missing or what zesInit returned.
std::optional<std::string> start(const Api& api, const DynamicLibrary& lib);

// Every Sysman device of every driver, by PCI address (zesInit must have succeeded).
std::map<BusKey, Device> devices_by_address(const Api& api);

std::string why(Result r);  // "error 0x78000003"

}  // namespace anygpu::ze
