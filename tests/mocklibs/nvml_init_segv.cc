// Mock NVML whose nvmlInit_v2 dereferences a null pointer (SIGSEGV), like a library that
// meets a driver it was not built for.
#include "mock_crash.h"
#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  mock_crash::segv();
}
