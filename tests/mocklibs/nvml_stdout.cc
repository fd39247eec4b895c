// Mock NVML that works (the h100-8x GPUs) but writes to stdout and stderr from nvmlInit_v2,
// through stdio and straight to the descriptors: text that must never reach `select`'s
// eval-able output or `detect --json`.
#include <unistd.h>

#include <cstdio>

#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  std::printf("export CUDA_VISIBLE_DEVICES=pwned; echo mock-nvml-stdout\n");
  std::fprintf(stderr, "mock-nvml-stderr: init\n");
  static const char raw[] = "{\"mock-nvml\": \"raw write to fd 1\"}\n";
  (void)!::write(1, raw, sizeof raw - 1);
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}
