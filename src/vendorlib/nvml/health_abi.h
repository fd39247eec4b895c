// The NVML health entry points anygpu calls, declared here (layouts and values as in nvml.h,
// NVIDIA/go-nvml@2f9e261fe40a7a1c54783d66805e8920564763b4 gen/nvml/nvml.h) so no SDK is needed
// to build. Shared with the mock NVML library the tests build.
#pragma once

#include "vendorlib/nvml/abi.h"

namespace anygpu::nvml {

inline constexpr Return kErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

// nvmlMemoryErrorType_t and nvmlEccCounterType_t.
inline constexpr int kMemoryErrorCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
inline constexpr int kMemoryErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
inline constexpr int kVolatileEcc = 0;             // NVML_VOLATILE_ECC: since the driver loaded
inline constexpr int kAggregateEcc = 1;            // NVML_AGGREGATE_ECC: the device's lifetime

// nvmlPageRetirementCause_t.
inline constexpr int kRetiredMultipleSbe = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_…
inline constexpr int kRetiredDbe = 1;          // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR

// nvmlClocksEventReason* bits (nvmlDeviceGetCurrentClocksEventReasons).
inline constexpr unsigned long long kEventGpuIdle = 0x1;
inline constexpr unsigned long long kEventSwPowerCap = 0x4;
inline constexpr unsigned long long kEventHwSlowdown = 0x8;
inline constexpr unsigned long long kEventSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kEventHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kEventHwPowerBrakeSlowdown = 0x80;

// nvmlProcessInfo_v2_t (what nvmlDeviceGetComputeRunningProcesses_v3 fills).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE (all ones) when unknown
  unsigned int gpuInstanceId;        // 0xFFFFFFFF without MIG
  unsigned int computeInstanceId;
};
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

// nvmlProcessUtilizationSample_t (what nvmlDeviceGetProcessUtilization fills): one sample per
// process that kept the device busy in a recent sampling period; the values are percentages.
struct ProcessUtilizationSample {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU time, microseconds
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};

using TotalEccFn = Return (*)(Device, int error_type, int counter_type, unsigned long long*);
using RemappedRowsFn = Return (*)(Device, unsigned int* corrected, unsigned int* uncorrected,
                                  unsigned int* pending, unsigned int* failure);
using RetiredPagesFn = Return (*)(Device, int cause, unsigned int* count, unsigned long long*);
using PendingStatusFn = Return (*)(Device, int* is_pending);  // nvmlEnableState_t
using EventReasonsFn = Return (*)(Device, unsigned long long*);
using RunningProcessesFn = Return (*)(Device, unsigned int* count, ProcessInfo*);
using ProcessUtilizationFn = Return (*)(Device, ProcessUtilizationSample*, unsigned int* count,
                                        unsigned long long last_seen_us);

}  // namespace anygpu::nvml
