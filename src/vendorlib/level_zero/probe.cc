// Level Zero Sysman (libze_loader.so.1): model name and driver version per device, matched to
// PCI functions by the BDF address Sysman reports; and the Xe Links between devices from the
// core API's fabric extension (fabric.h), which needs no Sysman.
#include "vendorlib/level_zero/level_zero.h"

#include <cstring>
#include <vector>

#include "util/strings.h"
#include "vendorlib/level_zero/abi.h"
#include "vendorlib/level_zero/fabric.h"

namespace anygpu {

namespace {
std::optional<std::string> text(const char* buf, size_t n) {
  std::string s(buf, strnlen(buf, n));
  auto t = trim(s);
  if (t.empty() || t == "unknown" || t == "unkown" || !is_printable_text(t)) return std::nullopt;
  return std::string(t);
}

LibraryDeviceFacts& facts_for(LibraryResult& result, const PciAddress& address) {
  for (auto& f : result.devices)
    if (f.address == address) return f;
  result.devices.emplace_back().address = address;
  return result.devices.back();
}

// Every device vertex of the fabric gets its Xe Link peers (none is a reading too). When the
// fabric could not be read, the devices Sysman listed and the vertices listed before the failure
// get the reason; with neither, the links stay unasked (topo then says they are not read).
void add_fabric_links(const DynamicLibrary& lib, LibraryResult& result) {
  auto reading = ze::read_xe_links(lib);
  for (const auto& key : reading.devices)
    if (auto address = pci_address_of(key)) facts_for(result, *address);
  if (reading.unknown) {
    for (auto& f : result.devices) f.xelink = XeLinkFacts{{}, reading.unknown};
    return;
  }
  for (const auto& key : reading.devices) {
    auto address = pci_address_of(key);
    if (!address) continue;
    auto& f = facts_for(result, *address);
    f.xelink.emplace();
    for (const auto& p : reading.pairs) {
      const BusKey* other = p.a == key ? &p.b : p.b == key ? &p.a : nullptr;
      if (!other) continue;
      if (auto peer = pci_address_of(*other)) f.xelink->peers.push_back({*peer, p.edges});
    }
  }
}

void read_sysman(const DynamicLibrary& lib, LibraryResult& result);
}  // namespace

void ze::probe(const DynamicLibrary& lib, LibraryResult& result) {
  read_sysman(lib, result);
  add_fabric_links(lib, result);
}

namespace {

void read_sysman(const DynamicLibrary& lib, LibraryResult& result) {
  auto init = lib.symbol<ze::InitFn>({"zesInit"});
  auto drivers = lib.symbol<ze::DriverGetFn>({"zesDriverGet"});
  auto devices = lib.symbol<ze::DeviceGetFn>({"zesDeviceGet"});
  auto props = lib.symbol<ze::DevicePropertiesFn>({"zesDeviceGetProperties"});
  auto pci = lib.symbol<ze::PciPropertiesFn>({"zesDevicePciGetProperties"});
  auto& report = result.report;
  if (!init) {
    // Loaders before spec 1.5 (Debian 12's 1.8.0) have no zesInit: Sysman would need
    // ZES_ENABLE_SYSMAN=1 in the environment before zeInit, which a library must not set
    // behind its host process's back. The loader is there; we just do not query it.
    report.status = LibraryStatus::found;
    report.message = "Level Zero loader without zesInit (spec < 1.5): Sysman not queried";
    return;
  }
  if (!drivers || !devices || !pci) {
    report.status = LibraryStatus::error;
    report.message =
        "missing one of zesInit, zesDriverGet, zesDeviceGet, zesDevicePciGetProperties";
    return;
  }
  if (auto r = init(0); r != ze::kSuccess) {
    report.status = LibraryStatus::error;
    report.message = "zesInit failed (" + hex(static_cast<uint32_t>(r), 8) + ")";
    return;
  }
  report.status = LibraryStatus::loaded;
  uint32_t ndrv = 0;
  if (drivers(&ndrv, nullptr) != ze::kSuccess || ndrv == 0 || ndrv > 64) return;
  std::vector<ze::Driver> drv(ndrv);
  if (drivers(&ndrv, drv.data()) != ze::kSuccess) return;
  for (auto d : drv) {
    uint32_t ndev = 0;
    if (devices(d, &ndev, nullptr) != ze::kSuccess || ndev == 0 || ndev > 1024) continue;
    std::vector<ze::Device> devs(ndev);
    if (devices(d, &ndev, devs.data()) != ze::kSuccess) continue;
    for (auto dev : devs) {
      ze::PciProperties p{};
      p.stype = ze::kStructureTypePciProperties;
      if (pci(dev, &p) != ze::kSuccess) continue;
      LibraryDeviceFacts f;
      f.address = anygpu::PciAddress{p.address.domain, static_cast<uint8_t>(p.address.bus),
                                     static_cast<uint8_t>(p.address.device),
                                     static_cast<uint8_t>(p.address.function)};
      ze::DeviceProperties dp{};
      dp.stype = ze::kStructureTypeDeviceProperties;
      if (props && props(dev, &dp) == ze::kSuccess) {
        f.name = text(dp.modelName, sizeof dp.modelName);
        if (!f.name) f.name = text(dp.core.name, sizeof dp.core.name);
        if (auto v = text(dp.driverVersion, sizeof dp.driverVersion)) result.driver_version = v;
      }
      result.devices.push_back(std::move(f));
    }
  }
}

}  // namespace

}  // namespace anygpu
