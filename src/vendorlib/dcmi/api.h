// DCMI's entry points resolved from a loaded libdcmi.so, and its chips by PCI address: shared
// by the metrics sampler and the health reader, both inside a library worker only.
#pragma once

#include <map>
#include <optional>
#include <utility>

#include "host/dynamic_library.h"
#include "vendorlib/bus_key.h"
#include "vendorlib/dcmi/abi.h"

namespace anygpu::dcmi {

struct Api {
  explicit Api(const DynamicLibrary& lib);
  InitFn init;
  CardListFn cards;
  DeviceNumFn devices;
  UtilizationFn utilization;
  TemperatureFn temperature;
  PowerFn power;
  HbmFn hbm;
  PcieAllFn pcie_all;
  PcieFn pcie;
  HealthFn health;
  ResourceInfoFn resource_info;
  EccFn ecc;
  ErrorCodeFn error_codes;
  TopoFn topo;
  DeviceInfoFn device_info;

  // dcmi_init, the card list, the device count and a PCIe info call: what every reader needs.
  bool usable() const { return init && cards && devices && (pcie_all || pcie); }
};

using anygpu::BusKey;

// Every chip DCMI lists, by PCI address: (card, device).
std::map<BusKey, std::pair<int, int>> chips(const Api& api);

}  // namespace anygpu::dcmi
