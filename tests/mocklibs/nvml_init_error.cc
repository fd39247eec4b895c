// Mock NVML: the library loads but the kernel driver is not (NVML_ERROR_DRIVER_NOT_LOADED),
// as on a host where libnvidia-ml is installed and nvidia.ko failed to load.
#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  return anygpu::nvml::kErrorDriverNotLoaded;  // 9: nvmlErrorString -> "Driver Not Loaded"
}
