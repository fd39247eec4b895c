#include "vendorlib/dcmi/api.h"

#include <algorithm>

namespace anygpu::dcmi {

namespace {

constexpr int kMaxCards = 64;

// The chip's PCI address: dcmi_get_device_pcie_info_v2 (with domain), else the older call
// (domain 0: the only domain the drivers without _v2 support).
std::optional<BusKey> bus_of(const Api& api, int card, int device) {
  if (PcieInfoAll p{}; api.pcie_all && api.pcie_all(card, device, &p) == kOk) {
    if (p.domain < 0) return std::nullopt;
    return BusKey{static_cast<uint32_t>(p.domain), p.bdf_busid, p.bdf_deviceid, p.bdf_funcid};
  }
  if (PcieInfo p{}; api.pcie && api.pcie(card, device, &p) == kOk)
    return BusKey{0, p.bdf_busid, p.bdf_deviceid, p.bdf_funcid};
  return std::nullopt;
}

}  // namespace

Api::Api(const DynamicLibrary& lib)
    : init(lib.symbol<InitFn>({"dcmi_init"})),
      cards(lib.symbol<CardListFn>({"dcmi_get_card_list", "dcmi_get_card_num_list"})),
      devices(lib.symbol<DeviceNumFn>({"dcmi_get_device_num_in_card"})),
      utilization(lib.symbol<UtilizationFn>({"dcmi_get_device_utilization_rate"})),
      temperature(lib.symbol<TemperatureFn>({"dcmi_get_device_temperature"})),
      power(lib.symbol<PowerFn>({"dcmi_get_device_power_info"})),
      hbm(lib.symbol<HbmFn>({"dcmi_get_device_hbm_info"})),
      pcie_all(lib.symbol<PcieAllFn>({"dcmi_get_device_pcie_info_v2"})),
      pcie(lib.symbol<PcieFn>({"dcmi_get_device_pcie_info"})),
      health(lib.symbol<HealthFn>({"dcmi_get_device_health"})),
      resource_info(lib.symbol<ResourceInfoFn>({"dcmi_get_device_resource_info"})),
      ecc(lib.symbol<EccFn>({"dcmi_get_device_ecc_info"})),
      error_codes(lib.symbol<ErrorCodeFn>({"dcmi_get_device_errorcode_v2"})),
      topo(lib.symbol<TopoFn>({"dcmi_get_topo_info_by_device_id"})),
      device_info(lib.symbol<DeviceInfoFn>({"dcmi_get_device_info"})) {}

std::map<BusKey, std::pair<int, int>> chips(const Api& api) {
  std::map<BusKey, std::pair<int, int>> out;
  int ncards = 0;
  int cards[kMaxCards] = {};
  if (api.cards(&ncards, cards, kMaxCards) != kOk || ncards < 0) ncards = 0;
  for (int c = 0; c < std::min(ncards, kMaxCards); ++c) {
    int ndev = 0;
    if (api.devices(cards[c], &ndev) != kOk || ndev < 0) continue;
    for (int d = 0; d < std::min(ndev, kMaxCards); ++d)
      if (auto key = bus_of(api, cards[c], d)) out[*key] = {cards[c], d};
  }
  return out;
}

}  // namespace anygpu::dcmi
