// Mock ROCm SMI (librocm_smi64.so): the eight MI300X of the mi300x-8x fixture, exporting the
// rsmi_* symbols anygpu uses with the types of src/vendorlib/rocm_smi/abi.h.
//
// Like the real library, it enumerates devices in KFD node order, not PCI order (on the fixture
// KFD nodes 4 and 5 are buses 0x65 and 0x46), so callers must match by the BDF id.
#include <cstring>
#include <type_traits>

#include "vendorlib/rocm_smi/abi.h"

#define MOCK_RSMI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace anygpu;

constexpr rsmi::Status kStatusInvalidArgs = 1;        // RSMI_STATUS_INVALID_ARGS
constexpr rsmi::Status kStatusNotSupported = 2;       // RSMI_STATUS_NOT_SUPPORTED
constexpr rsmi::Status kStatusInsufficientSize = 11;  // RSMI_STATUS_INSUFFICIENT_SIZE
constexpr rsmi::Status kStatusInitError = 8;          // RSMI_STATUS_INIT_ERROR

constexpr const char* kName = "AMD Instinct MI300X";
constexpr uint64_t kVramTotal = 206141652992ULL;  // = mem_info_vram_total in the fixture

struct Gpu {
  uint32_t domain, bus, device, function;
};
// KFD node order 2,3,4,5,6,7,8,9 -> buses 05, 26, 65, 46, 85, a6, c6, e5.
constexpr Gpu kGpus[] = {
    {0, 0x05, 0, 0}, {0, 0x26, 0, 0}, {0, 0x65, 0, 0}, {0, 0x46, 0, 0},
    {0, 0x85, 0, 0}, {0, 0xa6, 0, 0}, {0, 0xc6, 0, 0}, {0, 0xe5, 0, 0},
};
constexpr uint32_t kCount = sizeof kGpus / sizeof kGpus[0];

int g_init = 0;

}  // namespace

MOCK_RSMI_EXPORT rsmi::Status rsmi_init(uint64_t /*flags*/) {
  ++g_init;
  return rsmi::kSuccess;
}

MOCK_RSMI_EXPORT rsmi::Status rsmi_shut_down() {
  if (g_init == 0) return kStatusInitError;
  --g_init;
  return rsmi::kSuccess;
}

MOCK_RSMI_EXPORT rsmi::Status rsmi_num_monitor_devices(uint32_t* n) {
  if (g_init == 0) return kStatusInitError;
  if (!n) return kStatusInvalidArgs;
  *n = kCount;
  return rsmi::kSuccess;
}

// BDFID = domain << 32 | bus << 8 | device << 3 | function (rocm_smi.h).
MOCK_RSMI_EXPORT rsmi::Status rsmi_dev_pci_id_get(uint32_t i, uint64_t* bdfid) {
  if (g_init == 0) return kStatusInitError;
  if (i >= kCount || !bdfid) return kStatusInvalidArgs;
  const auto& g = kGpus[i];
  *bdfid = uint64_t{g.domain} << 32 | uint64_t{g.bus} << 8 | uint64_t{g.device} << 3 |
           uint64_t{g.function};
  return rsmi::kSuccess;
}

MOCK_RSMI_EXPORT rsmi::Status rsmi_dev_name_get(uint32_t i, char* name, size_t len) {
  if (g_init == 0) return kStatusInitError;
  if (i >= kCount || !name || len == 0) return kStatusInvalidArgs;
  size_t n = std::strlen(kName);
  if (len < n + 1) return kStatusInsufficientSize;
  std::memcpy(name, kName, n + 1);
  return rsmi::kSuccess;
}

MOCK_RSMI_EXPORT rsmi::Status rsmi_dev_memory_total_get(uint32_t i, int type, uint64_t* total) {
  if (g_init == 0) return kStatusInitError;
  if (i >= kCount || !total) return kStatusInvalidArgs;
  if (type != rsmi::kMemTypeVram) return kStatusNotSupported;
  *total = kVramTotal;
  return rsmi::kSuccess;
}

static_assert(std::is_same_v<decltype(&rsmi_init), rsmi::InitFn>);
static_assert(std::is_same_v<decltype(&rsmi_shut_down), rsmi::ShutdownFn>);
static_assert(std::is_same_v<decltype(&rsmi_num_monitor_devices), rsmi::CountFn>);
static_assert(std::is_same_v<decltype(&rsmi_dev_pci_id_get), rsmi::PciIdFn>);
static_assert(std::is_same_v<decltype(&rsmi_dev_name_get), rsmi::NameFn>);
static_assert(std::is_same_v<decltype(&rsmi_dev_memory_total_get), rsmi::MemoryTotalFn>);
