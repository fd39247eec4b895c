// Mock NVML whose nvmlInit_v2 calls abort() (SIGABRT), like a failed assertion inside a
// vendor library.
#include <cstdlib>

#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  std::abort();
}
