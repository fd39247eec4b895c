// Mock Level Zero loader with Sysman metrics: the three GPUs of the intel-max-arc fixture, each
// with an "all engines" group and a "compute" group, and one memory module. Counters and memory
// come from a file the test writes and rewrites (path in MOCK_ZE_METRICS_FILE; read on every
// call). One line per GPU:
//
//   <index> <activeTime µs> <timestamp µs> <memory size bytes> <memory free bytes>
//
// Without the file (or the GPU's line) activity and memory answer UNSUPPORTED_FEATURE.
// Health (memory health, RAS error sets) comes from MOCK_ZE_HEALTH_FILE; see the end.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "mock_crash.h"
#include "mock_rows.h"
#include "vendorlib/level_zero/abi.h"

#define MOCK_ZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace anygpu::ze {
struct DriverSt {
  int id;
};
struct DeviceSt {
  uint32_t bus;
  const char* model;
};
struct EngineSt {
  unsigned device;
  int type;
};
struct MemSt {
  unsigned device, module;
};
struct RasSt {
  unsigned device, set;
};
}  // namespace anygpu::ze

namespace {

using namespace anygpu;

constexpr ze::Result kErrorUninitialized = 0x78000001;  // ZE_RESULT_ERROR_UNINITIALIZED
using ze::kErrorUnsupportedFeature;
constexpr ze::Result kErrorInvalidNullPointer = 0x78000007;       // ..._INVALID_NULL_POINTER
constexpr ze::Result kErrorInvalidNullHandle = 0x78000005;        // ..._INVALID_NULL_HANDLE
constexpr ze::Result kErrorNotAvailable = 0x70010001;             // ZE_RESULT_ERROR_NOT_AVAILABLE
constexpr ze::Result kErrorInsufficientPermissions = 0x70010000;  // ..._INSUFFICIENT_PERMISSIONS

ze::DriverSt g_driver{1};
ze::DeviceSt g_devices[] = {
    {0x06, "Intel(R) Arc(TM) A770 Graphics"},
    {0x29, "Intel(R) Data Center GPU Max 1550"},
    {0x9a, "Intel(R) Data Center GPU Max 1550"},
};
constexpr unsigned kCount = sizeof g_devices / sizeof g_devices[0];
// Compute first, so a sampler that takes the first group instead of "all" is caught.
ze::EngineSt g_engines[kCount][2] = {
    {{0, ze::kEngineGroupComputeAll}, {0, ze::kEngineGroupAll}},
    {{1, ze::kEngineGroupComputeAll}, {1, ze::kEngineGroupAll}},
    {{2, ze::kEngineGroupComputeAll}, {2, ze::kEngineGroupAll}},
};
constexpr unsigned kMaxModules = 4, kMaxRasSets = 8;
ze::MemSt g_memory[kCount][kMaxModules];
ze::RasSt g_ras[kCount][kMaxRasSets];
bool g_init = false;

// Health, from the file in MOCK_ZE_HEALTH_FILE (read on every call):
//
//   <index> memory <health> [<health> ...]   one memory module per value (zes_mem_health_t);
//                                            without the line: one module, health unknown
//   <index> ras <type> <7 counts>            one RAS error set; <type> correctable,
//                                            uncorrectable or a number; any other count of
//                                            counts makes zesRasGetState answer NOT_AVAILABLE
//   <index> crash                            zesRasGetState dies with SIGSEGV
constexpr const char* kHealthEnv = "MOCK_ZE_HEALTH_FILE";

std::vector<std::vector<std::string>> ras_sets(unsigned device) {
  std::vector<std::vector<std::string>> out;
  for (auto& w : mock_rows::rows(kHealthEnv, device))
    if (w[0] == "ras" && w.size() >= 2) out.push_back(std::move(w));
  return out;
}

std::vector<std::string> memory_line(unsigned device) {
  for (auto& w : mock_rows::rows(kHealthEnv, device))
    if (w[0] == "memory") return w;
  return {};
}

unsigned module_count(unsigned device) {
  auto w = memory_line(device);
  return w.size() < 2 ? 1 : static_cast<unsigned>(std::min<size_t>(w.size() - 1, kMaxModules));
}

std::optional<int> memory_health(unsigned device, unsigned module) {
  auto w = memory_line(device);
  if (module + 1 >= w.size()) return std::nullopt;
  return std::stoi(w[module + 1]);
}

int index_of(ze::Device d) {
  for (unsigned i = 0; i < kCount; ++i)
    if (d == &g_devices[i]) return static_cast<int>(i);
  return -1;
}

// The file's values for GPU `index`; false without a line.
bool read_row(unsigned index, unsigned long long (&v)[4]) {
  for (const auto& w : mock_rows::rows("MOCK_ZE_METRICS_FILE", index)) {
    if (w.size() < 4) return false;
    for (int i = 0; i < 4; ++i) v[i] = std::stoull(w[i]);
    return true;
  }
  return false;
}

// The two-call enumeration pattern of Level Zero.
template <class T>
ze::Result give(uint32_t* count, T** out, T* items, uint32_t n) {
  if (!count) return kErrorInvalidNullPointer;
  if (!out || *count == 0) {
    *count = n;
    return ze::kSuccess;
  }
  uint32_t k = *count < n ? *count : n;
  for (uint32_t i = 0; i < k; ++i) out[i] = &items[i];
  *count = k;
  return ze::kSuccess;
}

}  // namespace

MOCK_ZE_EXPORT ze::Result zeInit(uint32_t /*flags*/) {
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesInit(uint32_t /*flags*/) {
  g_init = true;
  for (unsigned d = 0; d < kCount; ++d) {
    for (unsigned m = 0; m < kMaxModules; ++m) g_memory[d][m] = {d, m};
    for (unsigned r = 0; r < kMaxRasSets; ++r) g_ras[d][r] = {d, r};
  }
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDriverGet(uint32_t* count, ze::Driver* drivers) {
  if (!g_init) return kErrorUninitialized;
  return give(count, drivers, &g_driver, 1);
}

MOCK_ZE_EXPORT ze::Result zesDeviceGet(ze::Driver driver, uint32_t* count, ze::Device* devices) {
  if (!g_init) return kErrorUninitialized;
  if (driver != &g_driver) return kErrorInvalidNullHandle;
  return give(count, devices, g_devices, kCount);
}

MOCK_ZE_EXPORT ze::Result zesDeviceGetProperties(ze::Device device, ze::DeviceProperties* p) {
  int i = index_of(device);
  if (i < 0) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  std::strncpy(p->modelName, g_devices[i].model, sizeof p->modelName - 1);
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDevicePciGetProperties(ze::Device device, ze::PciProperties* p) {
  int i = index_of(device);
  if (i < 0) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  p->address = {0, g_devices[i].bus, 0, 0};
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDeviceEnumEngineGroups(ze::Device device, uint32_t* count,
                                                    ze::Engine* engines) {
  int i = index_of(device);
  if (i < 0) return kErrorInvalidNullHandle;
  return give(count, engines, g_engines[i], 2);
}

MOCK_ZE_EXPORT ze::Result zesEngineGetProperties(ze::Engine engine, ze::EngineProperties* p) {
  if (!engine) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  p->type = engine->type;
  p->onSubdevice = 0;
  p->subdeviceId = 0;
  return ze::kSuccess;
}

// The "all" group reports the file's counters; the compute group is busy all the time, so
// picking it would show 1.0.
MOCK_ZE_EXPORT ze::Result zesEngineGetActivity(ze::Engine engine, ze::EngineStats* stats) {
  if (!engine) return kErrorInvalidNullHandle;
  if (!stats) return kErrorInvalidNullPointer;
  unsigned long long v[4];
  if (!read_row(engine->device, v)) return kErrorUnsupportedFeature;
  stats->activeTime = engine->type == ze::kEngineGroupAll ? v[0] : v[1];
  stats->timestamp = v[1];
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDeviceEnumMemoryModules(ze::Device device, uint32_t* count,
                                                     ze::Mem* modules) {
  int i = index_of(device);
  if (i < 0) return kErrorInvalidNullHandle;
  return give(count, modules, g_memory[i], module_count(static_cast<unsigned>(i)));
}

MOCK_ZE_EXPORT ze::Result zesMemoryGetState(ze::Mem mem, ze::MemState* state) {
  if (!mem) return kErrorInvalidNullHandle;
  if (!state) return kErrorInvalidNullPointer;
  unsigned long long v[4];
  auto health = memory_health(mem->device, mem->module);
  bool metrics = read_row(mem->device, v);
  if (!metrics && !health) return kErrorUnsupportedFeature;
  state->health = health.value_or(ze::kMemHealthUnknown);
  state->size = metrics ? v[2] : 0;
  state->free = metrics ? v[3] : 0;
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDeviceEnumRasErrorSets(ze::Device device, uint32_t* count,
                                                    ze::Ras* sets) {
  int i = index_of(device);
  if (i < 0) return kErrorInvalidNullHandle;
  auto n = static_cast<uint32_t>(std::min<size_t>(ras_sets(i).size(), kMaxRasSets));
  return give(count, sets, g_ras[i], n);
}

MOCK_ZE_EXPORT ze::Result zesRasGetProperties(ze::Ras ras, ze::RasProperties* p) {
  if (!ras) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  auto sets = ras_sets(ras->device);
  if (ras->set >= sets.size()) return kErrorInvalidNullHandle;
  const auto& type = sets[ras->set][1];
  p->type = type == "correctable"     ? ze::kRasErrorTypeCorrectable
            : type == "uncorrectable" ? ze::kRasErrorTypeUncorrectable
                                      : std::stoi(type);
  p->onSubdevice = 0;
  p->subdeviceId = 0;
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesRasGetState(ze::Ras ras, uint8_t clear, ze::RasState* state) {
  if (!ras) return kErrorInvalidNullHandle;
  if (!state) return kErrorInvalidNullPointer;
  if (clear) return kErrorInsufficientPermissions;  // a reader must never clear the counters
  for (const auto& w : mock_rows::rows(kHealthEnv, ras->device))
    if (w[0] == "crash") mock_crash::segv();
  auto sets = ras_sets(ras->device);
  if (ras->set >= sets.size()) return kErrorInvalidNullHandle;
  const auto& w = sets[ras->set];
  if (w.size() != 2 + ze::kRasCategoryCount) return kErrorNotAvailable;
  for (unsigned c = 0; c < ze::kRasCategoryCount; ++c) state->category[c] = std::stoull(w[2 + c]);
  return ze::kSuccess;
}
