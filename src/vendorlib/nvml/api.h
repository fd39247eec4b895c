// The NVML entry points every user of the library needs (initialise, enumerate, match by PCI
// address, explain an error), resolved once; discovery and the metrics sampler add their own.
#pragma once

#include <string>

#include "host/dynamic_library.h"
#include "util/strings.h"
#include "vendorlib/nvml/abi.h"

namespace anygpu::nvml {

struct CoreApi {
  explicit CoreApi(const DynamicLibrary& lib)
      : init(lib.symbol<InitFn>({"nvmlInit_v2", "nvmlInit"})),
        error_string(lib.symbol<ErrorStringFn>({"nvmlErrorString"})),
        count(lib.symbol<CountFn>({"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"})),
        by_index(lib.symbol<HandleByIndexFn>(
            {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"})),
        pci_info(lib.symbol<PciInfoFn>({"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"})) {}

  std::string why(Return r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return cat({s ? s : "error", " (", std::to_string(r), ")"});
  }

  InitFn init;
  ErrorStringFn error_string;
  CountFn count;
  HandleByIndexFn by_index;
  PciInfoFn pci_info;
};

}  // namespace anygpu::nvml
