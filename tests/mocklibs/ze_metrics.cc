// Mock Level Zero loader with Sysman metrics: the three GPUs of the intel-max-arc fixture, each
// with an "all engines" group and a "compute" group, and one memory module. Counters and memory
// come from a file the test writes and rewrites (path in MOCK_ZE_METRICS_FILE; read on every
// call). One line per GPU:
//
//   <index> <activeTime µs> <timestamp µs> <memory size bytes> <memory free bytes>
//
// Without the file (or the GPU's line) activity and memory answer UNSUPPORTED_FEATURE.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "probe/libs/level_zero_types.h"

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
  unsigned device;
};
}  // namespace anygpu::ze

namespace {

using namespace anygpu;

constexpr ze::Result kErrorUninitialized = 0x78000001;       // ZE_RESULT_ERROR_UNINITIALIZED
constexpr ze::Result kErrorUnsupportedFeature = 0x78000003;  // ..._UNSUPPORTED_FEATURE
constexpr ze::Result kErrorInvalidNullPointer = 0x78000007;  // ..._INVALID_NULL_POINTER
constexpr ze::Result kErrorInvalidNullHandle = 0x78000005;   // ..._INVALID_NULL_HANDLE

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
ze::MemSt g_memory[kCount] = {{0}, {1}, {2}};
bool g_init = false;

int index_of(ze::Device d) {
  for (unsigned i = 0; i < kCount; ++i)
    if (d == &g_devices[i]) return static_cast<int>(i);
  return -1;
}

// The file's values for GPU `index`; false without a line.
bool read_row(unsigned index, unsigned long long (&v)[4]) {
  const char* path = std::getenv("MOCK_ZE_METRICS_FILE");
  if (!path) return false;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    unsigned i = 0;
    if (!(f >> i) || i != index) continue;
    return static_cast<bool>(f >> v[0] >> v[1] >> v[2] >> v[3]);
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
  return give(count, modules, &g_memory[i], 1);
}

MOCK_ZE_EXPORT ze::Result zesMemoryGetState(ze::Mem mem, ze::MemState* state) {
  if (!mem) return kErrorInvalidNullHandle;
  if (!state) return kErrorInvalidNullPointer;
  unsigned long long v[4];
  if (!read_row(mem->device, v)) return kErrorUnsupportedFeature;
  state->size = v[2];
  state->free = v[3];
  return ze::kSuccess;
}
