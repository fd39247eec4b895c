// Mock NVML whose nvmlInit_v2 calls exit(0): the process ends "successfully" mid-call, which
// once made `select` exit 0 with nothing on stdout.
#include <cstdlib>

#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  std::exit(0);
}
