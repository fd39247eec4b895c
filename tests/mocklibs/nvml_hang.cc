// Mock NVML: nvmlInit_v2 never returns, like NVML on a GPU that fell off the bus. The caller
// must give up after its deadline; the thread stays blocked here until the process exits.
#include <unistd.h>

#include "mock_nvml_common.h"

MOCK_NVML_EXPORT anygpu::nvml::Return nvmlInit_v2() {
  for (;;) ::pause();  // a signal handler returning wakes pause(): block again
}
