// Mock NVML: a healthy driver with the eight H100s of the h100-8x fixture.
#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}
