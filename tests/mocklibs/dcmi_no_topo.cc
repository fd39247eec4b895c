// Mock DCMI (libdcmi.so) of a driver without dcmi_get_topo_info_by_device_id and
// dcmi_get_device_info: the eight NPUs of the ascend-910b-8x fixture by PCI address and nothing
// else, so HCCS links stay unknown and vNPU templates unread.
#include "vendorlib/dcmi/abi.h"

#define MOCK_DCMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr unsigned kNoTopoBus[] = {0x01, 0x02, 0x41, 0x42, 0x81, 0x82, 0xc1, 0xc2};
constexpr int kNoTopoCards = sizeof kNoTopoBus / sizeof kNoTopoBus[0];

}  // namespace

MOCK_DCMI_EXPORT int dcmi_init() {
  return anygpu::dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_card_list(int* card_num, int* card_list, int list_len) {
  if (!card_num || !card_list || list_len < kNoTopoCards) return -8001;
  for (int i = 0; i < kNoTopoCards; ++i) card_list[i] = i;
  *card_num = kNoTopoCards;
  return anygpu::dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_num_in_card(int card_id, int* device_num) {
  if (card_id < 0 || card_id >= kNoTopoCards || !device_num) return -8007;
  *device_num = 1;
  return anygpu::dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_pcie_info_v2(int card_id, int device_id,
                                                  anygpu::dcmi::PcieInfoAll* info) {
  if (card_id < 0 || card_id >= kNoTopoCards || device_id != 0 || !info) return -8007;
  *info = {};
  info->venderid = 0x19e5;
  info->deviceid = 0xd802;
  info->bdf_busid = kNoTopoBus[card_id];
  return anygpu::dcmi::kOk;
}
