// Mock NVML: an old or damaged library that lacks nvmlDeviceGetPciInfo_v3 and _v2, so devices
// cannot be matched to PCI functions.
#define MOCK_NVML_NO_PCI_INFO 1
#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}
