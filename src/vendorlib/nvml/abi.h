// The subset of nvml.h that anygpu calls, declared here so no SDK is needed to build.
// Shared with the mock NVML library the tests build.
#pragma once

#include <cstdint>

namespace anygpu::nvml {

using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr unsigned kStringBufferSize = 96;  // >= NVML_DEVICE_NAME_V2_BUFFER_SIZE (96)

struct DeviceSt;
using Device = DeviceSt*;

// nvmlPciInfo_t as of the _v2/_v3 entry points.
struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;  // device id << 16 | vendor id
  unsigned int pciSubSystemId;
  char busId[32];
};

// nvmlMemory_t (v1).
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using CountFn = Return (*)(unsigned int*);
using HandleByIndexFn = Return (*)(unsigned int, Device*);
using PciInfoFn = Return (*)(Device, PciInfo*);
using StringFn = Return (*)(Device, char*, unsigned int);
using MemoryFn = Return (*)(Device, Memory*);
using CapabilityFn = Return (*)(Device, int*, int*);
using SystemStringFn = Return (*)(char*, unsigned int);
using IntFn = Return (*)(int*);
// MIG (nvml.h of NVIDIA/go-nvml gen/nvml/nvml.h: nvmlDeviceGetMigMode, …GetMaxMigDeviceCount,
// …GetMigDeviceHandleByIndex, …GetGpuInstanceId, …GetComputeInstanceId). Looked up one by one:
// drivers before R450 lack them.
using MigModeFn = Return (*)(Device, unsigned int* current, unsigned int* pending);
using DeviceUintFn = Return (*)(Device, unsigned int*);
using MigHandleFn = Return (*)(Device, unsigned int, Device*);
inline constexpr unsigned kMigEnabled = 1;  // NVML_DEVICE_MIG_ENABLE

}  // namespace anygpu::nvml
