// The subset of Level Zero Sysman (zes_api.h) that anygpu calls. Layouts follow the 1.x headers;
// tests/unit/abi_layout_test.cc compares them with Debian's libze-dev when it is installed.
#pragma once

#include <cstdint>

namespace anygpu::ze {

using Result = int;
inline constexpr Result kSuccess = 0;
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

}  // namespace anygpu::ze
