// Mock Level Zero loader (libze_loader.so.1) with Sysman: the three GPUs of the intel-max-arc
// fixture (an Arc A770 on xe and two Data Center GPU Max 1550 on i915), exporting the zes*
// symbols anygpu uses with the types of src/vendorlib/level_zero/abi.h.
#include <cstring>
#include <type_traits>

#include "vendorlib/level_zero/abi.h"

#define MOCK_ZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace anygpu::ze {
struct DriverSt {
  int id;
};
struct DeviceSt {
  uint32_t domain, bus, device, function;
  uint32_t device_id;
  const char* model;
};
}  // namespace anygpu::ze

namespace {

using namespace anygpu;

constexpr ze::Result kErrorUninitialized = 0x78000001;       // ZE_RESULT_ERROR_UNINITIALIZED
constexpr ze::Result kErrorInvalidNullPointer = 0x78000007;  // ZE_RESULT_ERROR_INVALID_NULL_POINTER
constexpr ze::Result kErrorInvalidNullHandle = 0x78000005;   // ZE_RESULT_ERROR_INVALID_NULL_HANDLE
// Sysman's driverVersion is the kernel driver's (Intel's out-of-tree backport publishes
// /sys/module/i915/agama_version); with the in-tree i915 and xe of this fixture it is "unknown".
constexpr const char* kDriverVersion = "unknown";

ze::DriverSt g_driver{1};
ze::DeviceSt g_devices[] = {
    {0, 0x06, 0, 0, 0x56a0, "Intel(R) Arc(TM) A770 Graphics"},
    {0, 0x29, 0, 0, 0x0bd5, "Intel(R) Data Center GPU Max 1550"},
    {0, 0x9a, 0, 0, 0x0bd5, "Intel(R) Data Center GPU Max 1550"},
};
constexpr uint32_t kCount = sizeof g_devices / sizeof g_devices[0];
bool g_init = false;

bool valid(ze::Device d) {
  for (auto& g : g_devices)
    if (d == &g) return true;
  return false;
}

void copy(char* dst, size_t n, const char* src) {
  std::strncpy(dst, src, n - 1);
  dst[n - 1] = '\0';
}

}  // namespace

// Every loader exports the core entry point; anygpu checks it to know the file is a loader.
MOCK_ZE_EXPORT ze::Result zeInit(uint32_t /*flags*/) {
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesInit(uint32_t /*flags*/) {
  g_init = true;
  return ze::kSuccess;
}

// The usual Level Zero two-call pattern: a null array asks for the count.
MOCK_ZE_EXPORT ze::Result zesDriverGet(uint32_t* count, ze::Driver* drivers) {
  if (!g_init) return kErrorUninitialized;
  if (!count) return kErrorInvalidNullPointer;
  if (!drivers || *count == 0) {
    *count = 1;
    return ze::kSuccess;
  }
  drivers[0] = &g_driver;
  *count = 1;
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDeviceGet(ze::Driver driver, uint32_t* count, ze::Device* devices) {
  if (!g_init) return kErrorUninitialized;
  if (driver != &g_driver) return kErrorInvalidNullHandle;
  if (!count) return kErrorInvalidNullPointer;
  if (!devices || *count == 0) {
    *count = kCount;
    return ze::kSuccess;
  }
  uint32_t n = *count < kCount ? *count : kCount;
  for (uint32_t i = 0; i < n; ++i) devices[i] = &g_devices[i];
  *count = n;
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDeviceGetProperties(ze::Device dev, ze::DeviceProperties* p) {
  if (!g_init) return kErrorUninitialized;
  if (!valid(dev)) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  p->core.vendorId = 0x8086;
  p->core.deviceId = dev->device_id;
  copy(p->core.name, sizeof p->core.name, dev->model);
  p->numSubdevices = dev->device_id == 0x0bd5 ? 2 : 0;
  copy(p->serialNumber, sizeof p->serialNumber, "unknown");
  copy(p->boardNumber, sizeof p->boardNumber, "unknown");
  copy(p->brandName, sizeof p->brandName, "unknown");
  copy(p->modelName, sizeof p->modelName, dev->model);
  copy(p->vendorName, sizeof p->vendorName, "Intel(R) Corporation");
  copy(p->driverVersion, sizeof p->driverVersion, kDriverVersion);
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zesDevicePciGetProperties(ze::Device dev, ze::PciProperties* p) {
  if (!g_init) return kErrorUninitialized;
  if (!valid(dev)) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  p->address = {dev->domain, dev->bus, dev->device, dev->function};
  p->maxSpeed = {4, 16, 31508000000};
  p->haveBandwidthCounters = p->havePacketCounters = p->haveReplayCounters = 0;
  return ze::kSuccess;
}

static_assert(std::is_same_v<decltype(&zesInit), ze::InitFn>);
static_assert(std::is_same_v<decltype(&zesDriverGet), ze::DriverGetFn>);
static_assert(std::is_same_v<decltype(&zesDeviceGet), ze::DeviceGetFn>);
static_assert(std::is_same_v<decltype(&zesDeviceGetProperties), ze::DevicePropertiesFn>);
static_assert(std::is_same_v<decltype(&zesDevicePciGetProperties), ze::PciPropertiesFn>);
