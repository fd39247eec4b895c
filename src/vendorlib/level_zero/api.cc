#include "vendorlib/level_zero/api.h"

#include "util/strings.h"

namespace anygpu::ze {

Api::Api(const DynamicLibrary& lib)
    : init(lib.symbol<InitFn>({"zesInit"})),
      drivers(lib.symbol<DriverGetFn>({"zesDriverGet"})),
      devices(lib.symbol<DeviceGetFn>({"zesDeviceGet"})),
      pci(lib.symbol<PciPropertiesFn>({"zesDevicePciGetProperties"})),
      engines(lib.symbol<EnumEnginesFn>({"zesDeviceEnumEngineGroups"})),
      engine_props(lib.symbol<EnginePropertiesFn>({"zesEngineGetProperties"})),
      activity(lib.symbol<EngineActivityFn>({"zesEngineGetActivity"})),
      memories(lib.symbol<EnumMemoryFn>({"zesDeviceEnumMemoryModules"})),
      mem_state(lib.symbol<MemoryStateFn>({"zesMemoryGetState"})),
      ras_sets(lib.symbol<EnumRasFn>({"zesDeviceEnumRasErrorSets"})),
      ras_props(lib.symbol<RasPropertiesFn>({"zesRasGetProperties"})),
      ras_state(lib.symbol<RasStateFn>({"zesRasGetState"})) {}

std::optional<std::string> start(const Api& api, const DynamicLibrary& lib) {
  if (!api.usable())
    return lib.loaded_from() +
           ": no zesInit, zesDriverGet, zesDeviceGet or zesDevicePciGetProperties (Level Zero "
           "older than 1.5)";
  if (auto r = api.init(0); r != kSuccess) return "zesInit failed: " + why(r);
  return std::nullopt;
}

std::map<BusKey, Device> devices_by_address(const Api& api) {
  std::map<BusKey, Device> out;
  uint32_t n = 0;
  if (api.drivers(&n, nullptr) != kSuccess || n == 0 || n > 64) return out;
  std::vector<Driver> drivers(n);
  if (api.drivers(&n, drivers.data()) != kSuccess) return out;
  drivers.resize(std::min<size_t>(n, drivers.size()));
  for (auto drv : drivers)
    for (auto dev : enumerate<Device>(api.devices, drv)) {
      PciProperties p{};
      p.stype = kStructureTypePciProperties;
      if (api.pci(dev, &p) != kSuccess) continue;
      out[{p.address.domain, p.address.bus, p.address.device, p.address.function}] = dev;
    }
  return out;
}

std::string why(Result r) {
  return "error " + hex(static_cast<uint32_t>(r), 8);
}

}  // namespace anygpu::ze
