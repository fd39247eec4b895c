// The subset of Level Zero Sysman (zes_api.h) that anygpu calls. Layouts follow the 1.x headers;
// tests/unit/abi_layout_test.cc compares them with Debian's libze-dev when it is installed.
#pragma once

#include <cstdint>

namespace anygpu::ze {

using Result = int;
inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorUnsupportedFeature = 0x78000003;  // ..._UNSUPPORTED_FEATURE
inline constexpr int kStructureTypeDeviceProperties = 0x1;  // ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES
inline constexpr int kStructureTypePciProperties = 0x2;     // ZES_STRUCTURE_TYPE_PCI_PROPERTIES

struct DriverSt;
struct DeviceSt;
using Driver = DriverSt*;
using Device = DeviceSt*;

struct CoreDeviceProperties {  // ze_device_properties_t
  int stype;
  void* pNext;
  int type;
  uint32_t vendorId;
  uint32_t deviceId;
  uint32_t flags;
  uint32_t subdeviceId;
  uint32_t coreClockRate;
  uint64_t maxMemAllocSize;
  uint32_t maxHardwareContexts;
  uint32_t maxCommandQueuePriority;
  uint32_t numThreadsPerEU;
  uint32_t physicalEUSimdWidth;
  uint32_t numEUsPerSubslice;
  uint32_t numSubslicesPerSlice;
  uint32_t numSlices;
  uint64_t timerResolution;
  uint32_t timestampValidBits;
  uint32_t kernelTimestampValidBits;
  uint8_t uuid[16];
  char name[256];
};

struct DeviceProperties {  // zes_device_properties_t
  int stype;
  void* pNext;
  CoreDeviceProperties core;
  uint32_t numSubdevices;
  char serialNumber[64];
  char boardNumber[64];
  char brandName[64];
  char modelName[64];
  char vendorName[64];
  char driverVersion[64];
};

struct PciAddress {  // zes_pci_address_t
  uint32_t domain, bus, device, function;
};
struct PciSpeed {  // zes_pci_speed_t
  int32_t gen, width;
  int64_t maxBandwidth;
};
struct PciProperties {  // zes_pci_properties_t
  int stype;
  void* pNext;
  PciAddress address;
  PciSpeed maxSpeed;
  uint8_t haveBandwidthCounters, havePacketCounters, haveReplayCounters;
};

using InitFn = Result (*)(uint32_t);
using DriverGetFn = Result (*)(uint32_t*, Driver*);
using DeviceGetFn = Result (*)(Driver, uint32_t*, Device*);
using DevicePropertiesFn = Result (*)(Device, DeviceProperties*);
using PciPropertiesFn = Result (*)(Device, PciProperties*);

// Metrics: engine activity and memory state (zes_api.h "Engine" and "Memory" sections).
// Appended for the metrics sampler; layouts checked in tests/unit/metrics_level_zero_test.cc.
inline constexpr int kStructureTypeEngineProperties = 0x5;  // ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES
inline constexpr int kStructureTypeMemState = 0x1e;         // ZES_STRUCTURE_TYPE_MEM_STATE
inline constexpr int kEngineGroupAll = 0;                   // ZES_ENGINE_GROUP_ALL
inline constexpr int kEngineGroupComputeAll = 1;            // ZES_ENGINE_GROUP_COMPUTE_ALL
inline constexpr int kEngineGroupRenderAll = 12;            // ZES_ENGINE_GROUP_RENDER_ALL

struct EngineSt;
struct MemSt;
using Engine = EngineSt*;  // zes_engine_handle_t
using Mem = MemSt*;        // zes_mem_handle_t

struct EngineProperties {  // zes_engine_properties_t
  int stype;
  void* pNext;
  int type;  // zes_engine_group_t
  uint8_t onSubdevice;
  uint32_t subdeviceId;
};
struct EngineStats {  // zes_engine_stats_t: both monotonic, in microseconds
  uint64_t activeTime;
  uint64_t timestamp;
};
struct MemState {  // zes_mem_state_t
  int stype;
  const void* pNext;
  int health;  // zes_mem_health_t
  uint64_t free;
  uint64_t size;
};

using EnumEnginesFn = Result (*)(Device, uint32_t*, Engine*);
using EnginePropertiesFn = Result (*)(Engine, EngineProperties*);
using EngineActivityFn = Result (*)(Engine, EngineStats*);
using EnumMemoryFn = Result (*)(Device, uint32_t*, Mem*);
using MemoryStateFn = Result (*)(Mem, MemState*);

// Health: memory health and RAS error sets (zes_api.h "Memory" and "RAS" sections); layouts
// checked in tests/unit/abi_layout_test.cc against libze-dev.
inline constexpr int kMemHealthUnknown = 0;              // ZES_MEM_HEALTH_UNKNOWN
inline constexpr int kMemHealthOk = 1;                   // ZES_MEM_HEALTH_OK
inline constexpr int kMemHealthDegraded = 2;             // ZES_MEM_HEALTH_DEGRADED
inline constexpr int kMemHealthCritical = 3;             // ZES_MEM_HEALTH_CRITICAL
inline constexpr int kMemHealthReplace = 4;              // ZES_MEM_HEALTH_REPLACE
inline constexpr int kStructureTypeRasProperties = 0xf;  // ZES_STRUCTURE_TYPE_RAS_PROPERTIES
inline constexpr int kStructureTypeRasState = 0x22;      // ZES_STRUCTURE_TYPE_RAS_STATE
inline constexpr int kRasErrorTypeCorrectable = 0;       // ZES_RAS_ERROR_TYPE_CORRECTABLE
inline constexpr int kRasErrorTypeUncorrectable = 1;     // ZES_RAS_ERROR_TYPE_UNCORRECTABLE
inline constexpr unsigned kRasCategoryCount = 7;         // ZES_MAX_RAS_ERROR_CATEGORY_COUNT
inline constexpr unsigned kRasCategoryReset = 0;         // ZES_RAS_ERROR_CAT_RESET

struct RasSt;
using Ras = RasSt*;  // zes_ras_handle_t

struct RasProperties {  // zes_ras_properties_t
  int stype;
  void* pNext;
  int type;  // zes_ras_error_type_t
  uint8_t onSubdevice;
  uint32_t subdeviceId;
};
struct RasState {  // zes_ras_state_t: counts since the driver loaded (or the last clear)
  int stype;
  const void* pNext;
  uint64_t category[kRasCategoryCount];  // zes_ras_error_cat_t order
};

using EnumRasFn = Result (*)(Device, uint32_t*, Ras*);
using RasPropertiesFn = Result (*)(Ras, RasProperties*);
using RasStateFn = Result (*)(Ras, uint8_t clear, RasState*);

}  // namespace anygpu::ze
