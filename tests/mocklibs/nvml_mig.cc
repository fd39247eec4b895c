// Mock NVML with MIG on, matching the h100-8x-mig fixture's capability procfs: GPU 0 has seven
// 1g.10gb instances (GI 7-13), GPU 1 a 4g.40gb (GI 1) and a 3g.40gb split into two compute
// instances (GI 2, CI 0 and 1), GPU 2 one 3g.40gb (GI 2); GPUs 3-7 run without MIG. Names are
// NVML's for MIG devices ("<GPU name> MIG <profile>"); memory and UUIDs are this mock's own.
//
// Metrics as NVML gives them on such a host: each MIG device answers nvmlDeviceGetMemoryInfo on
// its own handle with its own size and a memory use of its own (distinct per instance, so a
// test can tell them apart); temperature and power exist per parent GPU only (30+N °C,
// 100+N W for GPU N) and a MIG handle answers NOT_SUPPORTED; utilisation answers on GPUs
// without MIG only (10·N %), as nvml.h says of nvmlDeviceGetUtilizationRates: "On MIG-enabled
// GPUs, querying device utilization rates is not currently supported".
#include "mock_nvml_common.h"
#include "vendorlib/nvml/metrics_abi.h"

namespace {

using anygpu::nvml::DeviceSt;

constexpr unsigned long long k1g = 10200547328ULL, k3g4g = 40802189312ULL;
constexpr unsigned long long kMiB = 1048576ULL;
constexpr const char* k1gName = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";

// `index` is the parent GPU's; bus fields are unused for a MIG handle.
DeviceSt g_migs[] = {
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b07", k1gName, k1g, 7, 0, 101 * kMiB},
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b08", k1gName, k1g, 8, 0, 102 * kMiB},
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b09", k1gName, k1g, 9, 0, 103 * kMiB},
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b0a", k1gName, k1g, 10, 0, 104 * kMiB},
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b0b", k1gName, k1g, 11, 0, 105 * kMiB},
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b0c", k1gName, k1g, 12, 0, 106 * kMiB},
    {0, 0, 0, 0, "MIG-0a7f0c6e-3b1d-5e2a-9c41-7d2e8f6a1b0d", k1gName, k1g, 13, 0, 107 * kMiB},
    {1, 0, 0, 0, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e01", "NVIDIA H100 80GB HBM3 MIG 4g.40gb",
     k3g4g, 1, 0, 2048 * kMiB},
    {1, 0, 0, 0, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e20", "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb",
     k3g4g, 2, 0, 512 * kMiB},
    {1, 0, 0, 0, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21", "NVIDIA H100 80GB HBM3 MIG 2c.3g.40gb",
     k3g4g, 2, 1, 768 * kMiB},
    {2, 0, 0, 0, "MIG-9e8d7c6b-5a49-5382-a1b0-c9d8e7f6a520", "NVIDIA H100 80GB HBM3 MIG 3g.40gb",
     k3g4g, 2, 0, 3072 * kMiB},
};
constexpr unsigned kMigCount = sizeof g_migs / sizeof g_migs[0];

const bool g_registered = [] {
  mock_nvml::g_mig_devices = g_migs;
  mock_nvml::g_mig_device_count = kMigCount;
  return true;
}();

bool is_mig(anygpu::nvml::Device dev) {
  for (auto& m : g_migs)
    if (dev == &m) return true;
  return false;
}

// GPUs 0-2 run with MIG on (a MIG handle's index is its parent's).
bool mig_enabled(anygpu::nvml::Device dev) {
  return !is_mig(dev) && dev->index <= 2;
}

// The MIG devices of GPU `index`, in NVML's order.
unsigned migs_of(unsigned index, DeviceSt** out, unsigned max) {
  unsigned n = 0;
  for (auto& m : g_migs)
    if (m.index == index && n < max) out[n++] = &m;
  return n;
}

}  // namespace

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  (void)g_registered;
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetMigMode(anygpu::nvml::Device dev,
                                                           unsigned int* current,
                                                           unsigned int* pending) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || is_mig(dev) || !current || !pending) return kErrorInvalidArgument;
  *current = *pending = mig_enabled(dev) ? 1 : 0;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetMaxMigDeviceCount(anygpu::nvml::Device dev,
                                                                     unsigned int* count) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || is_mig(dev) || !count) return kErrorInvalidArgument;
  *count = mig_enabled(dev) ? 7 : 0;  // "zero if MIG is not supported or enabled"
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetMigDeviceHandleByIndex(
    anygpu::nvml::Device dev, unsigned int index, anygpu::nvml::Device* mig) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || is_mig(dev) || !mig) return kErrorInvalidArgument;
  DeviceSt* list[8];
  unsigned n = migs_of(dev->index, list, 8);
  if (index >= n) return nvml::kErrorNotFound;  // an empty slot
  *mig = list[index];
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetGpuInstanceId(anygpu::nvml::Device dev,
                                                                 unsigned int* id) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!is_mig(dev) || !id) return kErrorInvalidArgument;
  *id = dev->gpu_instance;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetComputeInstanceId(anygpu::nvml::Device dev,
                                                                     unsigned int* id) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!is_mig(dev) || !id) return kErrorInvalidArgument;
  *id = dev->compute_instance;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetUtilizationRates(anygpu::nvml::Device dev,
                                                                    anygpu::nvml::Utilization* u) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !u) return kErrorInvalidArgument;
  if (is_mig(dev) || mig_enabled(dev)) return nvml::kErrorNotSupported;
  u->gpu = 10 * dev->index;
  u->memory = 0;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetTemperature(anygpu::nvml::Device dev, int sensor,
                                                               unsigned int* t) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !t || sensor != nvml::kTemperatureGpu) return kErrorInvalidArgument;
  if (is_mig(dev)) return nvml::kErrorNotSupported;
  *t = 30 + dev->index;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlDeviceGetPowerUsage(anygpu::nvml::Device dev,
                                                              unsigned int* mw) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !mw) return kErrorInvalidArgument;
  if (is_mig(dev)) return nvml::kErrorNotSupported;
  *mw = (100 + dev->index) * 1000;
  return nvml::kSuccess;
}

static_assert(std::is_same_v<decltype(&nvmlDeviceGetMigMode), anygpu::nvml::MigModeFn>);
static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetUtilizationRates), anygpu::nvml::UtilizationFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetTemperature), anygpu::nvml::TemperatureFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetPowerUsage), anygpu::nvml::PowerFn>);
static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetMaxMigDeviceCount), anygpu::nvml::DeviceUintFn>);
static_assert(
    std::is_same_v<decltype(&nvmlDeviceGetMigDeviceHandleByIndex), anygpu::nvml::MigHandleFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetGpuInstanceId), anygpu::nvml::DeviceUintFn>);
