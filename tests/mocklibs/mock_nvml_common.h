// Shared body of the mock NVML libraries (tests/mocklibs/nvml_*.cc).
//
// Each mock is a real shared object, loaded by the production loader from inside a copied
// fixture root, exporting the C symbols NVML exports. It describes the h100-8x fixture: the
// eight GPUs at the bus ids of tests/hosts/h100-8x/sys/bus/pci/devices, with the UUIDs of
// proc/driver/nvidia/gpus/<bdf>/information. The types come from src/vendorlib/nvml/abi.h,
// so no SDK is needed. Include this header from exactly one translation unit per mock.
//
// A mock defines nvmlInit_v2 itself (that is where the variants differ) and calls
// mock_nvml::mark_initialized() on success. Define MOCK_NVML_NO_PCI_INFO before including
// this header to leave out nvmlDeviceGetPciInfo_v3/_v2 (and the unversioned name).
#pragma once

#include <atomic>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "vendorlib/nvml/abi.h"

#define MOCK_NVML_EXPORT extern "C" __attribute__((visibility("default")))

namespace anygpu::nvml {
// The opaque nvmlDevice_t target: the mock's own per-GPU record.
struct DeviceSt {
  unsigned index;
  unsigned domain, bus, device;
  const char* uuid;
  // A MIG device's own (tests/mocklibs/nvml_mig.cc): its name, memory size, instance ids and
  // memory in use.
  const char* name;
  unsigned long long memory;
  unsigned gpu_instance, compute_instance;
  unsigned long long memory_used;
};
}  // namespace anygpu::nvml

namespace mock_nvml {

using namespace anygpu;

inline constexpr nvml::Return kErrorInvalidArgument = 2;   // NVML_ERROR_INVALID_ARGUMENT
inline constexpr nvml::Return kErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

inline constexpr const char* kName = "NVIDIA H100 80GB HBM3";
inline constexpr unsigned long long kMemoryTotal = 85520809984ULL;  // 79.6 GiB, as NVML reports
inline constexpr unsigned long long kMemoryUsed = 565182464ULL;
inline constexpr const char* kDriverVersion = "550.90.07";
inline constexpr int kCudaDriverVersion = 12040;         // CUDA 12.4
inline constexpr unsigned kPciDeviceId = 0x233010de;     // 0x2330 << 16 | 0x10de
inline constexpr unsigned kPciSubSystemId = 0x16c110de;  // 10de:16c1

// The fixture's GPUs in NVML's default (PCI bus) order.
inline nvml::DeviceSt g_devices[] = {
    {0, 0, 0x18, 0, "GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08", nullptr, 0, 0, 0, 0},
    {1, 0, 0x2a, 0, "GPU-c1c08ae2-a2ac-f0bd-7f8c-83b81aeb216e", nullptr, 0, 0, 0, 0},
    {2, 0, 0x3a, 0, "GPU-8be09f7c-ae13-3913-4055-65df6f5d9946", nullptr, 0, 0, 0, 0},
    {3, 0, 0x5d, 0, "GPU-3d3afd79-ea3e-db9e-fc46-8cdd4f3f8334", nullptr, 0, 0, 0, 0},
    {4, 0, 0x9a, 0, "GPU-6b68226f-89b7-651a-c8d9-e5288cdd84fc", nullptr, 0, 0, 0, 0},
    {5, 0, 0xab, 0, "GPU-1e7f7a2a-e7ca-31b0-fb27-c2bd3489a93b", nullptr, 0, 0, 0, 0},
    {6, 0, 0xba, 0, "GPU-27c981ac-4696-9bf2-9b7f-9de15e00b462", nullptr, 0, 0, 0, 0},
    {7, 0, 0xdb, 0, "GPU-91856b45-e77b-d206-d5da-f3796728d02f", nullptr, 0, 0, 0, 0},
};
inline constexpr unsigned kDeviceCount = sizeof g_devices / sizeof g_devices[0];

inline std::atomic<int> g_init_count{0};
inline void mark_initialized() {
  g_init_count.fetch_add(1);
}
inline bool initialized() {
  return g_init_count.load() > 0;
}

// MIG devices a mock hands out as handles of their own (nvml_mig.cc sets these).
inline nvml::DeviceSt* g_mig_devices = nullptr;
inline unsigned g_mig_device_count = 0;

inline bool valid(nvml::Device dev) {
  for (auto& d : g_devices)
    if (dev == &d) return true;
  for (unsigned i = 0; i < g_mig_device_count; ++i)
    if (dev == &g_mig_devices[i]) return true;
  return false;
}

// Copies `s` like NVML does: NVML_ERROR_INSUFFICIENT_SIZE when it does not fit with its NUL.
inline nvml::Return copy_string(const char* s, char* buf, unsigned length) {
  if (!buf) return kErrorInvalidArgument;
  size_t n = std::strlen(s);
  if (length < n + 1) return kErrorInsufficientSize;
  std::memcpy(buf, s, n + 1);
  return nvml::kSuccess;
}

}  // namespace mock_nvml

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2();  // defined by each mock

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit() {
  return nvmlInit_v2();
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlShutdown() {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  g_init_count.fetch_sub(1);
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT const char* nvmlErrorString(anygpu::nvml::Return r) {
  switch (r) {
    case 0:
      return "Success";
    case 1:
      return "Uninitialized";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 7:
      return "Insufficient Size";
    case 9:
      return "Driver Not Loaded";
    case 12:
      return "NVML Shared Library Not Found";
    default:
      return "Unknown Error";
  }
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetCount_v2(unsigned int* count) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!count) return kErrorInvalidArgument;
  *count = kDeviceCount;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                                    anygpu::nvml::Device* dev) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!dev || index >= kDeviceCount) return kErrorInvalidArgument;
  *dev = &g_devices[index];
  return nvml::kSuccess;
}

#ifndef MOCK_NVML_NO_PCI_INFO
MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetPciInfo_v3(anygpu::nvml::Device dev,
                                                              anygpu::nvml::PciInfo* pci) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !pci) return kErrorInvalidArgument;
  std::memset(pci, 0, sizeof *pci);
  pci->domain = dev->domain;
  pci->bus = dev->bus;
  pci->device = dev->device;
  pci->pciDeviceId = kPciDeviceId;
  pci->pciSubSystemId = kPciSubSystemId;
  // NVML's own formats: "%04x:%02x:%02x.0" (legacy) and "%08x:%02x:%02x.0".
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04x:%02x:%02x.0", dev->domain,
                dev->bus, dev->device);
  std::snprintf(pci->busId, sizeof pci->busId, "%08x:%02x:%02x.0", dev->domain, dev->bus,
                dev->device);
  return nvml::kSuccess;
}
MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetPciInfo_v2(anygpu::nvml::Device dev,
                                                              anygpu::nvml::PciInfo* pci) {
  return nvmlDeviceGetPciInfo_v3(dev, pci);
}
#endif

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetName(anygpu::nvml::Device dev, char* name,
                                                        unsigned int length) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev)) return kErrorInvalidArgument;
  return copy_string(dev->name ? dev->name : kName, name, length);
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetUUID(anygpu::nvml::Device dev, char* uuid,
                                                        unsigned int length) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev)) return kErrorInvalidArgument;
  return copy_string(dev->uuid, uuid, length);
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetMemoryInfo(anygpu::nvml::Device dev,
                                                              anygpu::nvml::Memory* memory) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !memory) return kErrorInvalidArgument;
  memory->total = dev->memory ? dev->memory : kMemoryTotal;
  memory->used = dev->memory_used ? dev->memory_used : kMemoryUsed;
  // A GPU split into MIG devices uses what they use together.
  if (unsigned long long sum = 0; !dev->name) {
    for (unsigned i = 0; i < g_mig_device_count; ++i)
      if (g_mig_devices[i].index == dev->index) sum += g_mig_devices[i].memory_used;
    if (sum) memory->used = sum;
  }
  memory->free = memory->total - memory->used;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetCudaComputeCapability(anygpu::nvml::Device dev,
                                                                         int* major, int* minor) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !major || !minor) return kErrorInvalidArgument;
  *major = 9;
  *minor = 0;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlSystemGetDriverVersion(char* version,
                                                                 unsigned int length) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  return copy_string(kDriverVersion, version, length);
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlSystemGetCudaDriverVersion_v2(int* version) {
  using namespace mock_nvml;
  if (!version) return kErrorInvalidArgument;  // NVML answers this one without nvmlInit
  *version = kCudaDriverVersion;
  return nvml::kSuccess;
}
MOCK_NVML_EXPORT anygpu::nvml::Return nvmlSystemGetCudaDriverVersion(int* version) {
  return nvmlSystemGetCudaDriverVersion_v2(version);
}

// The mock's exports have exactly the types the production loader casts them to.
static_assert(std::is_same_v<decltype(&nvmlInit_v2), anygpu::nvml::InitFn>);
static_assert(std::is_same_v<decltype(&nvmlShutdown), anygpu::nvml::ShutdownFn>);
static_assert(std::is_same_v<decltype(&nvmlErrorString), anygpu::nvml::ErrorStringFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetCount_v2), anygpu::nvml::CountFn>);
static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetHandleByIndex_v2), anygpu::nvml::HandleByIndexFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetName), anygpu::nvml::StringFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetUUID), anygpu::nvml::StringFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetMemoryInfo), anygpu::nvml::MemoryFn>);
static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetCudaComputeCapability), anygpu::nvml::CapabilityFn>);
static_assert(std::is_same_v<decltype(&nvmlSystemGetDriverVersion), anygpu::nvml::SystemStringFn>);
static_assert(std::is_same_v<decltype(&nvmlSystemGetCudaDriverVersion_v2), anygpu::nvml::IntFn>);
#ifndef MOCK_NVML_NO_PCI_INFO
static_assert(std::is_same_v<decltype(&nvmlDeviceGetPciInfo_v3), anygpu::nvml::PciInfoFn>);
#endif
