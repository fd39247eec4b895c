// Mock DCMI (libdcmi.so) for the ascend-910b-8x and ascend-910b-vnpu fixtures: eight cards with
// one NPU each, at the fixtures' PCI addresses; metrics here, health and processes further down,
// HCCS topology and vNPUs at the end. Values come from a file
// the test writes (path in MOCK_DCMI_METRICS_FILE; read on every call). One line per card:
//
//   <card> <AI Core util %> <temp °C> <power 0.1 W> <HBM total MB> <HBM used MB>
//
// Without the card's line every metric call fails with -8255, standing in for a chip that does
// not support the call (the code npu-exporter treats as "not supported"; unverified here).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mock_crash.h"
#include "mock_rows.h"
#include "vendorlib/dcmi/abi.h"

#define MOCK_DCMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace anygpu;

constexpr int kInvalidParameter = -8001;
constexpr int kInvalidDeviceId = -8007;
constexpr unsigned kBus[] = {0x01, 0x02, 0x41, 0x42, 0x81, 0x82, 0xc1, 0xc2};
constexpr int kCards = sizeof kBus / sizeof kBus[0];
bool g_init = false;

bool valid(int card, int device) {
  return g_init && card >= 0 && card < kCards && device == 0;
}

using mock_rows::rows;

bool read_row(int card, long long (&v)[5]) {
  for (const auto& w : rows("MOCK_DCMI_METRICS_FILE", card)) {
    if (w.size() < 5) return false;
    for (int i = 0; i < 5; ++i) v[i] = std::stoll(w[i]);
    return true;
  }
  return false;
}

}  // namespace

MOCK_DCMI_EXPORT int dcmi_init() {
  g_init = true;
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_card_list(int* card_num, int* card_list, int list_len) {
  if (!g_init || !card_num || !card_list || list_len < kCards) return kInvalidParameter;
  for (int i = 0; i < kCards; ++i) card_list[i] = i;
  *card_num = kCards;
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_num_in_card(int card_id, int* device_num) {
  if (!valid(card_id, 0) || !device_num) return kInvalidDeviceId;
  *device_num = 1;
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_pcie_info_v2(int card_id, int device_id,
                                                  dcmi::PcieInfoAll* info) {
  if (!valid(card_id, device_id) || !info) return kInvalidDeviceId;
  *info = {};
  info->venderid = 0x19e5;
  info->deviceid = 0xd802;
  info->domain = 0;
  info->bdf_busid = kBus[card_id];
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type,
                                                      unsigned int* rate) {
  long long v[5];
  if (!valid(card_id, device_id) || !rate) return kInvalidDeviceId;
  if (input_type != dcmi::kUtilizationAiCore || !read_row(card_id, v)) return dcmi::kNotSupported;
  *rate = static_cast<unsigned>(v[0]);
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_temperature(int card_id, int device_id, int* celsius) {
  long long v[5];
  if (!valid(card_id, device_id) || !celsius) return kInvalidDeviceId;
  if (!read_row(card_id, v)) return dcmi::kNotSupported;
  *celsius = static_cast<int>(v[1]);
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_power_info(int card_id, int device_id, int* power) {
  long long v[5];
  if (!valid(card_id, device_id) || !power) return kInvalidDeviceId;
  if (!read_row(card_id, v)) return dcmi::kNotSupported;
  *power = static_cast<int>(v[2]);
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_hbm_info(int card_id, int device_id, dcmi::HbmInfo* hbm) {
  long long v[5];
  if (!valid(card_id, device_id) || !hbm) return kInvalidDeviceId;
  if (!read_row(card_id, v)) return dcmi::kNotSupported;
  *hbm = {};
  hbm->memory_size = static_cast<unsigned long long>(v[3]);
  hbm->memory_usage = static_cast<unsigned long long>(v[4]);
  hbm->freq = 1600;
  hbm->temp = static_cast<int>(v[1]) - 5;
  return dcmi::kOk;
}

// Health and processes, from the file in MOCK_DCMI_HEALTH_FILE (read on every call):
//
//   <card> health <level>          dcmi_get_device_health answers <level>
//   <card> process <pid> <bytes>   one entry of dcmi_get_device_resource_info
//   <card> ecc <enable> <sbe> <dbe> <total sbe> <total dbe> <isolated sbe> <isolated dbe>
//          <next sbe> <next dbe>   dcmi_get_device_ecc_info for HBM (other types: not supported)
//   <card> fault <hex> [<hex> ...]  dcmi_get_device_errorcode_v2's codes (no line: none);
//                                  more than list_len codes: the count says how many there are
//   <card> crash                   the health call dies with SIGSEGV
//
// A card without a health line is healthy (0); without process lines it lists none.
namespace {

std::vector<std::vector<std::string>> health_rows(int card) {
  return rows("MOCK_DCMI_HEALTH_FILE", card);
}

}  // namespace

MOCK_DCMI_EXPORT int dcmi_get_device_health(int card_id, int device_id, unsigned int* health) {
  if (!valid(card_id, device_id) || !health) return kInvalidDeviceId;
  *health = 0;
  for (const auto& w : health_rows(card_id)) {
    if (w[0] == "crash") mock_crash::segv();
    if (w[0] == "health" && w.size() == 2) *health = static_cast<unsigned>(std::stoul(w[1]));
  }
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_resource_info(int card_id, int device_id,
                                                   dcmi::ProcMemInfo* procs, int* count) {
  if (!valid(card_id, device_id) || !procs || !count) return kInvalidParameter;
  int n = 0;
  for (const auto& w : health_rows(card_id))
    if (w[0] == "process" && w.size() == 3 && n < 32)
      procs[n++] = {std::stoi(w[1]), std::stoul(w[2])};
  *count = n;
  return dcmi::kOk;
}

MOCK_DCMI_EXPORT int dcmi_get_device_ecc_info(int card_id, int device_id, int device_type,
                                              dcmi::EccInfo* info) {
  if (!valid(card_id, device_id) || !info) return kInvalidParameter;
  if (device_type != dcmi::kDeviceTypeHbm) return dcmi::kNotSupported;
  for (const auto& w : health_rows(card_id))
    if (w[0] == "ecc" && w.size() == 10) {
      unsigned v[9];
      for (int i = 0; i < 9; ++i) v[i] = static_cast<unsigned>(std::stoul(w[i + 1]));
      *info = {static_cast<int>(v[0]), v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
      return dcmi::kOk;
    }
  return dcmi::kNotSupported;
}

MOCK_DCMI_EXPORT int dcmi_get_device_errorcode_v2(int card_id, int device_id, int* error_count,
                                                  unsigned int* error_code_list,
                                                  unsigned int list_len) {
  if (!valid(card_id, device_id) || !error_count || !error_code_list) return kInvalidParameter;
  *error_count = 0;
  for (const auto& w : health_rows(card_id))
    if (w[0] == "fault") {
      for (size_t i = 1; i < w.size(); ++i)
        if (i - 1 < list_len) error_code_list[i - 1] = std::stoul(w[i], nullptr, 16);
      *error_count = static_cast<int>(w.size() - 1);
    }
  return dcmi::kOk;
}

// HCCS topology (dcmi_get_topo_info_by_device_id), by the layout named in MOCK_DCMI_TOPO:
//   mesh        every two NPUs joined by HCCS (8×910B, F-64)
//   rings       two HCCS rings of four, SYS between them (Atlas training, F-65): cards 0, 1, 4, 5
//               and cards 2, 3, 6, 7, so neither ring is four NPUs in bus order
//   error       any pair with card 2 fails with -8005 (an inner error)
//   unknown     cards 0 and 1 answer DCMI_TOPO_TYPE_BUTT (the driver's pair query failed)
//   asymmetric  mesh, but card 0 answers PIX toward card 1
//   stranger    mesh, with an answer no header has (42) for cards 3 and 4
// Unset: the call is not supported (-8255), as on chips other than 910B and 910_93.
MOCK_DCMI_EXPORT int dcmi_get_topo_info_by_device_id(int card1, int device1, int card2, int device2,
                                                     int* topo_type) {
  if (!valid(card1, device1) || !valid(card2, device2) || !topo_type) return kInvalidDeviceId;
  const char* env = std::getenv("MOCK_DCMI_TOPO");
  if (!env) return dcmi::kNotSupported;
  std::string layout = env;
  constexpr int kSys = 1, kPix = 5;
  if (card1 == card2) {
    *topo_type = dcmi::kTopoSelf;
  } else if (layout == "error" && (card1 == 2 || card2 == 2)) {
    return -8005;
  } else if (layout == "unknown" && card1 + card2 == 1) {
    *topo_type = dcmi::kTopoUnknown;
  } else if (layout == "asymmetric" && card1 == 0 && card2 == 1) {
    *topo_type = kPix;
  } else if (layout == "stranger" && card1 + card2 == 7 && (card1 == 3 || card1 == 4)) {
    *topo_type = 42;
  } else if (layout == "rings") {
    *topo_type = card1 / 2 % 2 == card2 / 2 % 2 ? dcmi::kTopoHccs : kSys;
  } else {
    *topo_type = dcmi::kTopoHccs;
  }
  return dcmi::kOk;
}

// vNPUs (dcmi_get_device_info, vdev management), from the file in MOCK_DCMI_VNPU_FILE:
//   <card> vnpu <vdev id> <template> <AI Cores> <memory MB>   one vNPU of the card
//   <card> vnpu-fail                                           the vNPU list fails (-8005)
// Without the file every card lists no vNPU.
MOCK_DCMI_EXPORT int dcmi_get_device_info(int card_id, int device_id, int main_cmd,
                                          unsigned sub_cmd, void* buf, unsigned* size) {
  if (!valid(card_id, device_id) || !buf || !size) return kInvalidParameter;
  if (main_cmd != dcmi::kMainCmdVdevMng) return dcmi::kNotSupported;
  auto lines = rows("MOCK_DCMI_VNPU_FILE", card_id);
  if (sub_cmd == dcmi::kVdevSubCmdTotal) {
    if (*size < sizeof(dcmi::VdevTotal)) return kInvalidParameter;
    auto* total = static_cast<dcmi::VdevTotal*>(buf);
    *total = {};
    for (const auto& w : lines) {
      if (w[0] == "vnpu-fail") return -8005;
      if (w[0] == "vnpu" && w.size() == 5 && total->vdev_num < dcmi::kMaxVdevs)
        total->vdev_id[total->vdev_num++] = static_cast<unsigned>(std::stoul(w[1]));
    }
    return dcmi::kOk;
  }
  if (sub_cmd != dcmi::kVdevSubCmdOne || *size < sizeof(dcmi::VdevQuery)) return kInvalidParameter;
  auto* q = static_cast<dcmi::VdevQuery*>(buf);
  for (const auto& w : lines)
    if (w[0] == "vnpu" && w.size() == 5 && std::stoul(w[1]) == q->vdev_id) {
      q->info = {};
      std::memcpy(q->info.name, w[2].data(),
                  std::min(w[2].size(), sizeof q->info.name));  // no NUL when it fills
      q->info.computing.aic = std::stof(w[3]);
      q->info.computing.memory_size = std::stoull(w[4]);
      return dcmi::kOk;
    }
  return kInvalidDeviceId;
}
