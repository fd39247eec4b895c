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

// The MIG entry points (abi.h), each optional: drivers before R450 lack them.
struct MigApi {
  explicit MigApi(const DynamicLibrary& lib)
      : mig_mode(lib.symbol<MigModeFn>({"nvmlDeviceGetMigMode"})),
        max_mig(lib.symbol<DeviceUintFn>({"nvmlDeviceGetMaxMigDeviceCount"})),
        mig_by_index(lib.symbol<MigHandleFn>({"nvmlDeviceGetMigDeviceHandleByIndex"})),
        gi_id(lib.symbol<DeviceUintFn>({"nvmlDeviceGetGpuInstanceId"})),
        ci_id(lib.symbol<DeviceUintFn>({"nvmlDeviceGetComputeInstanceId"})) {}

  MigModeFn mig_mode;
  DeviceUintFn max_mig;
  MigHandleFn mig_by_index;
  DeviceUintFn gi_id, ci_id;

  bool has_mig() const { return mig_mode && max_mig && mig_by_index && gi_id && ci_id; }
};

}  // namespace anygpu::nvml
