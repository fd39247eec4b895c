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
inline constexpr unsigned kMigEnabled = 1;   // NVML_DEVICE_MIG_ENABLE
inline constexpr Return kErrorNotFound = 6;  // NVML_ERROR_NOT_FOUND (empty MIG slot, no new sample)

// NVLink (nvml.h of NVIDIA/go-nvml gen/nvml/nvml.h: NVML_NVLINK_MAX_LINKS, nvmlEnableState_t,
// nvmlIntNvLinkDeviceType_t, nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkRemotePciInfo_v2 —
// "pciSubSystemId is not filled" — and nvmlDeviceGetNvLinkRemoteDeviceType). Each is looked up
// on its own: without the first two a device's links are unknown; without the third, what is at
// the far end is.
inline constexpr unsigned kNvLinkMaxLinks = 36;             // NVML_NVLINK_MAX_LINKS
using EnableState = int;                                    // nvmlEnableState_t (a C enum)
inline constexpr EnableState kFeatureEnabled = 1;           // NVML_FEATURE_ENABLED; DISABLED is 0
using NvLinkDeviceType = int;                               // nvmlIntNvLinkDeviceType_t (a C enum)
inline constexpr NvLinkDeviceType kNvLinkDeviceGpu = 0x00;  // NVML_NVLINK_DEVICE_TYPE_GPU
inline constexpr NvLinkDeviceType kNvLinkDeviceIbmNpu = 0x01;  // …_IBMNPU
inline constexpr NvLinkDeviceType kNvLinkDeviceSwitch = 0x02;  // …_SWITCH
inline constexpr Return kErrorInvalidArgument = 2;             // NVML_ERROR_INVALID_ARGUMENT
using NvLinkStateFn = Return (*)(Device, unsigned int link, EnableState*);
using NvLinkRemotePciFn = Return (*)(Device, unsigned int link, PciInfo*);
using NvLinkRemoteTypeFn = Return (*)(Device, unsigned int link, NvLinkDeviceType*);

}  // namespace anygpu::nvml
