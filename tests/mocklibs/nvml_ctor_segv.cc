// Mock NVML that crashes in its ELF constructor: dlopen() itself never returns, before any
// NVML function could be called.
#include "mock_crash.h"
#include "mock_nvml_common.h"

namespace {
__attribute__((constructor)) void crash_on_load() {
  mock_crash::segv();
}
}  // namespace

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}
