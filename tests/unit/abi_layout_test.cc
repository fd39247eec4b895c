// Our hand-written declarations of vendor ABIs (src/vendorlib/*/abi.h) against the vendors'
// own headers, where a distribution packages them: Level Zero Sysman from Debian's libze-dev
// (/usr/include/level_zero/zes_api.h) and ROCm SMI from librocm-smi-dev
// (/usr/include/rocm_smi/rocm_smi.h). NVML has no packaged header here, so its layout is checked
// against the offsets nvml.h documents.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "vendorlib/level_zero/abi.h"
#include "vendorlib/nvml/abi.h"
#include "vendorlib/rocm_smi/abi.h"

#if __has_include(<level_zero/zes_api.h>)
#define ANYGPU_HAVE_ZES_H 1
#include <level_zero/zes_api.h>
#endif

#if __has_include(<rocm_smi/rocm_smi.h>)
#define ANYGPU_HAVE_RSMI_H 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <rocm_smi/rocm_smi.h>
#pragma GCC diagnostic pop
#endif

namespace anygpu {
namespace {

// ---------------------------------------------------------------------------------------------
// Function types: ours use int for result enums and our own opaque handle and struct types, so
// they are not the same C++ types as the vendor's. They are the same ABI when every parameter
// and the result are: the same type; integers or enums of one size (an enum is passed as its
// underlying integer); or pointers whose pointees are compatible, where a pointer to an
// incomplete (opaque handle) struct matches any other, and complete structs match when their
// size does (their member offsets are checked separately below).

template <class A, class B>
struct AbiCompatible;

template <class T>
concept Complete = requires {
  sizeof(T);
};

template <class A, class B>
constexpr bool pointee_compatible() {
  using PA = std::remove_cv_t<A>;
  using PB = std::remove_cv_t<B>;
  if constexpr (std::is_same_v<PA, PB>) {
    return true;
  } else if constexpr (std::is_class_v<PA> && std::is_class_v<PB>) {
    if constexpr (!Complete<PA> || !Complete<PB>)
      return !Complete<PA> && !Complete<PB>;
    else
      return sizeof(PA) == sizeof(PB) && alignof(PA) == alignof(PB);
  } else {
    return AbiCompatible<PA, PB>::value;
  }
}

template <class A, class B>
struct AbiCompatible {
  static constexpr bool value = [] {
    if constexpr (std::is_same_v<A, B>) {
      return true;
    } else if constexpr ((std::is_integral_v<A> || std::is_enum_v<A>)&&(std::is_integral_v<B> ||
                                                                        std::is_enum_v<B>)) {
      return sizeof(A) == sizeof(B);
    } else if constexpr (std::is_pointer_v<A> && std::is_pointer_v<B>) {
      return pointee_compatible<std::remove_pointer_t<A>, std::remove_pointer_t<B>>();
    } else {
      return false;
    }
  }();
};

template <class R1, class... A1, class R2, class... A2>
constexpr bool same_abi(R1 (*)(A1...), R2 (*)(A2...)) {
  if constexpr (sizeof...(A1) != sizeof...(A2))
    return false;
  else
    return AbiCompatible<R1, R2>::value && (AbiCompatible<A1, A2>::value && ...);
}

// The checker itself: what must and must not be accepted.
struct OpaqueA;
struct OpaqueB;
struct Sized8 {
  int64_t x;
};
struct Sized4 {
  int32_t x;
};
enum Enum32 : uint32_t { kEnumValue };
static_assert(same_abi(static_cast<int (*)(uint32_t)>(nullptr),
                       static_cast<Enum32 (*)(uint32_t)>(nullptr)));
static_assert(same_abi(static_cast<int (*)(OpaqueA*, Sized8*)>(nullptr),
                       static_cast<int (*)(OpaqueB*, Sized8*)>(nullptr)));
static_assert(!same_abi(static_cast<int (*)(uint32_t)>(nullptr),
                        static_cast<int (*)(uint64_t)>(nullptr)));
static_assert(!same_abi(static_cast<int (*)(Sized4*)>(nullptr),
                        static_cast<int (*)(Sized8*)>(nullptr)));
static_assert(!same_abi(static_cast<int (*)(OpaqueA*)>(nullptr),
                        static_cast<int (*)(Sized8*)>(nullptr)));
static_assert(!same_abi(static_cast<int (*)(uint32_t*)>(nullptr),
                        static_cast<int (*)(uint32_t)>(nullptr)));
static_assert(!same_abi(static_cast<int (*)(uint32_t)>(nullptr),
                        static_cast<int (*)(uint32_t, uint32_t)>(nullptr)));

// ---------------------------------------------------------------------------------------------
// NVML: nvmlPciInfo_t as nvml.h (CUDA 12.x) lays it out for the _v2/_v3 entry points.

TEST(AbiLayout, NvmlPciInfoMatchesDocumentedLayout) {
  static_assert(offsetof(nvml::PciInfo, busIdLegacy) == 0);
  static_assert(offsetof(nvml::PciInfo, domain) == 16);
  static_assert(offsetof(nvml::PciInfo, bus) == 20);
  static_assert(offsetof(nvml::PciInfo, device) == 24);
  static_assert(offsetof(nvml::PciInfo, pciDeviceId) == 28);
  static_assert(offsetof(nvml::PciInfo, pciSubSystemId) == 32);
  static_assert(offsetof(nvml::PciInfo, busId) == 36);
  static_assert(sizeof(nvml::PciInfo) == 68);
  static_assert(sizeof(nvml::PciInfo::busIdLegacy) == 16);  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  static_assert(sizeof(nvml::PciInfo::busId) == 32);        // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE
  EXPECT_EQ(offsetof(nvml::PciInfo, busIdLegacy), 0u);
  EXPECT_EQ(offsetof(nvml::PciInfo, domain), 16u);
  EXPECT_EQ(offsetof(nvml::PciInfo, bus), 20u);
  EXPECT_EQ(offsetof(nvml::PciInfo, device), 24u);
  EXPECT_EQ(offsetof(nvml::PciInfo, pciDeviceId), 28u);
  EXPECT_EQ(offsetof(nvml::PciInfo, pciSubSystemId), 32u);
  EXPECT_EQ(offsetof(nvml::PciInfo, busId), 36u);
  EXPECT_EQ(sizeof(nvml::PciInfo), 68u);
}

TEST(AbiLayout, NvmlMemoryAndConstantsMatchDocumentedValues) {
  // nvmlMemory_t (v1): three unsigned long long.
  static_assert(offsetof(nvml::Memory, total) == 0);
  static_assert(offsetof(nvml::Memory, free) == 8);
  static_assert(offsetof(nvml::Memory, used) == 16);
  static_assert(sizeof(nvml::Memory) == 24);
  // nvmlReturn_t values.
  EXPECT_EQ(nvml::kSuccess, 0);
  EXPECT_EQ(nvml::kErrorUninitialized, 1);
  EXPECT_EQ(nvml::kErrorNotSupported, 3);
  EXPECT_EQ(nvml::kErrorDriverNotLoaded, 9);
  EXPECT_EQ(nvml::kErrorLibraryNotFound, 12);
  // NVML_DEVICE_NAME_V2_BUFFER_SIZE 96, NVML_DEVICE_UUID_V2_BUFFER_SIZE 96,
  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80: one buffer fits them all.
  EXPECT_GE(nvml::kStringBufferSize, 96u);
}

// ---------------------------------------------------------------------------------------------
// Level Zero Sysman

TEST(AbiLayout, LevelZeroDevicePropertiesMatchesZesApiH) {
#ifndef ANYGPU_HAVE_ZES_H
  GTEST_SKIP() << "<level_zero/zes_api.h> not installed (Debian: apt install libze-dev)";
#else
  using Ours = ze::DeviceProperties;
  using Theirs = zes_device_properties_t;
  static_assert(sizeof(Ours) == sizeof(Theirs));
  static_assert(alignof(Ours) == alignof(Theirs));
  static_assert(offsetof(Ours, stype) == offsetof(Theirs, stype));
  static_assert(offsetof(Ours, pNext) == offsetof(Theirs, pNext));
  static_assert(offsetof(Ours, core) == offsetof(Theirs, core));
  static_assert(offsetof(Ours, numSubdevices) == offsetof(Theirs, numSubdevices));
  static_assert(offsetof(Ours, serialNumber) == offsetof(Theirs, serialNumber));
  static_assert(offsetof(Ours, boardNumber) == offsetof(Theirs, boardNumber));
  static_assert(offsetof(Ours, brandName) == offsetof(Theirs, brandName));
  static_assert(offsetof(Ours, modelName) == offsetof(Theirs, modelName));
  static_assert(offsetof(Ours, vendorName) == offsetof(Theirs, vendorName));
  static_assert(offsetof(Ours, driverVersion) == offsetof(Theirs, driverVersion));
  static_assert(sizeof(Ours::modelName) == sizeof(Theirs::modelName));
  static_assert(sizeof(Ours::driverVersion) == sizeof(Theirs::driverVersion));
  EXPECT_EQ(sizeof(Ours), sizeof(Theirs));
  EXPECT_EQ(offsetof(Ours, modelName), offsetof(Theirs, modelName));
  EXPECT_EQ(offsetof(Ours, driverVersion), offsetof(Theirs, driverVersion));
  EXPECT_EQ(sizeof(Ours::modelName), static_cast<size_t>(ZES_STRING_PROPERTY_SIZE));

  // The embedded ze_device_properties_t, down to the name we fall back to.
  using OurCore = ze::CoreDeviceProperties;
  using TheirCore = ze_device_properties_t;
  static_assert(sizeof(OurCore) == sizeof(TheirCore));
  static_assert(offsetof(OurCore, type) == offsetof(TheirCore, type));
  static_assert(offsetof(OurCore, vendorId) == offsetof(TheirCore, vendorId));
  static_assert(offsetof(OurCore, deviceId) == offsetof(TheirCore, deviceId));
  static_assert(offsetof(OurCore, maxMemAllocSize) == offsetof(TheirCore, maxMemAllocSize));
  static_assert(offsetof(OurCore, timerResolution) == offsetof(TheirCore, timerResolution));
  static_assert(offsetof(OurCore, uuid) == offsetof(TheirCore, uuid));
  static_assert(offsetof(OurCore, name) == offsetof(TheirCore, name));
  static_assert(sizeof(OurCore::name) == ZE_MAX_DEVICE_NAME);
  EXPECT_EQ(offsetof(Ours, core) + offsetof(OurCore, name),
            offsetof(Theirs, core) + offsetof(TheirCore, name));
  EXPECT_EQ(sizeof(OurCore::uuid), sizeof(ze_device_uuid_t));
#endif
}

TEST(AbiLayout, LevelZeroPciPropertiesMatchesZesApiH) {
#ifndef ANYGPU_HAVE_ZES_H
  GTEST_SKIP() << "<level_zero/zes_api.h> not installed (Debian: apt install libze-dev)";
#else
  using Ours = ze::PciProperties;
  using Theirs = zes_pci_properties_t;
  static_assert(sizeof(Ours) == sizeof(Theirs));
  static_assert(alignof(Ours) == alignof(Theirs));
  static_assert(offsetof(Ours, address) == offsetof(Theirs, address));
  static_assert(offsetof(Ours, maxSpeed) == offsetof(Theirs, maxSpeed));
  static_assert(offsetof(Ours, haveBandwidthCounters) == offsetof(Theirs, haveBandwidthCounters));
  static_assert(offsetof(Ours, havePacketCounters) == offsetof(Theirs, havePacketCounters));
  static_assert(offsetof(Ours, haveReplayCounters) == offsetof(Theirs, haveReplayCounters));
  static_assert(sizeof(ze::PciAddress) == sizeof(zes_pci_address_t));
  static_assert(offsetof(ze::PciAddress, domain) == offsetof(zes_pci_address_t, domain));
  static_assert(offsetof(ze::PciAddress, bus) == offsetof(zes_pci_address_t, bus));
  static_assert(offsetof(ze::PciAddress, device) == offsetof(zes_pci_address_t, device));
  static_assert(offsetof(ze::PciAddress, function) == offsetof(zes_pci_address_t, function));
  static_assert(sizeof(ze::PciSpeed) == sizeof(zes_pci_speed_t));
  static_assert(offsetof(ze::PciSpeed, maxBandwidth) == offsetof(zes_pci_speed_t, maxBandwidth));
  EXPECT_EQ(sizeof(Ours), sizeof(Theirs));
  EXPECT_EQ(offsetof(Ours, address), offsetof(Theirs, address));
  EXPECT_EQ(offsetof(Ours, address) + offsetof(ze::PciAddress, bus),
            offsetof(Theirs, address) + offsetof(zes_pci_address_t, bus));
#endif
}

TEST(AbiLayout, LevelZeroConstantsMatchZesApiH) {
#ifndef ANYGPU_HAVE_ZES_H
  GTEST_SKIP() << "<level_zero/zes_api.h> not installed (Debian: apt install libze-dev)";
#else
  static_assert(ze::kStructureTypeDeviceProperties == ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  static_assert(ze::kStructureTypePciProperties == ZES_STRUCTURE_TYPE_PCI_PROPERTIES);
  static_assert(ze::kSuccess == ZE_RESULT_SUCCESS);
  static_assert(sizeof(ze::Result) == sizeof(ze_result_t));
  static_assert(sizeof(int) == sizeof(zes_structure_type_t));  // our `int stype`
  EXPECT_EQ(ze::kStructureTypeDeviceProperties,
            static_cast<int>(ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES));
  EXPECT_EQ(ze::kStructureTypePciProperties, static_cast<int>(ZES_STRUCTURE_TYPE_PCI_PROPERTIES));
#endif
}

TEST(AbiLayout, LevelZeroDeviceFunctionTypesMatchZesApiH) {
#ifndef ANYGPU_HAVE_ZES_H
  GTEST_SKIP() << "<level_zero/zes_api.h> not installed (Debian: apt install libze-dev)";
#else
  static_assert(same_abi(ze::DevicePropertiesFn{}, &zesDeviceGetProperties));
  static_assert(same_abi(ze::PciPropertiesFn{}, &zesDevicePciGetProperties));
  {
    constexpr bool matches = same_abi(ze::DevicePropertiesFn{}, &zesDeviceGetProperties);
    EXPECT_TRUE(matches);
  }
  {
    constexpr bool matches = same_abi(ze::PciPropertiesFn{}, &zesDevicePciGetProperties);
    EXPECT_TRUE(matches);
  }
  // Not interchangeable with each other (different struct sizes): the checker is not vacuous.
  {
    constexpr bool matches = same_abi(ze::DevicePropertiesFn{}, &zesDevicePciGetProperties);
    EXPECT_FALSE(matches);
  }
#endif
}

// zesInit, zesDriverGet and zesDeviceGet are not compared: Debian 12's zes_api.h (spec 1.4)
// predates them. tests/mocklibs/ze_ok.cc pins their signatures to src/probe/libs' types.

// ---------------------------------------------------------------------------------------------
// ROCm SMI

TEST(AbiLayout, RocmSmiConstantsMatchRocmSmiH) {
#ifndef ANYGPU_HAVE_RSMI_H
  GTEST_SKIP() << "<rocm_smi/rocm_smi.h> not installed (Debian: apt install librocm-smi-dev)";
#else
  static_assert(rsmi::kMemTypeVram == RSMI_MEM_TYPE_VRAM);
  static_assert(rsmi::kSuccess == RSMI_STATUS_SUCCESS);
  static_assert(sizeof(rsmi::Status) == sizeof(rsmi_status_t));
  static_assert(sizeof(int) == sizeof(rsmi_memory_type_t));  // we pass the type as int
  EXPECT_EQ(rsmi::kMemTypeVram, static_cast<int>(RSMI_MEM_TYPE_VRAM));
  EXPECT_EQ(rsmi::kSuccess, static_cast<int>(RSMI_STATUS_SUCCESS));
#endif
}

TEST(AbiLayout, RocmSmiFunctionTypesMatchRocmSmiH) {
#ifndef ANYGPU_HAVE_RSMI_H
  GTEST_SKIP() << "<rocm_smi/rocm_smi.h> not installed (Debian: apt install librocm-smi-dev)";
#else
  static_assert(same_abi(rsmi::InitFn{}, &rsmi_init));
  static_assert(same_abi(rsmi::ShutdownFn{}, &rsmi_shut_down));
  static_assert(same_abi(rsmi::CountFn{}, &rsmi_num_monitor_devices));
  static_assert(same_abi(rsmi::PciIdFn{}, &rsmi_dev_pci_id_get));
  static_assert(same_abi(rsmi::NameFn{}, &rsmi_dev_name_get));
  static_assert(same_abi(rsmi::MemoryTotalFn{}, &rsmi_dev_memory_total_get));
  {
    constexpr bool matches = same_abi(rsmi::PciIdFn{}, &rsmi_dev_pci_id_get);
    EXPECT_TRUE(matches);
  }
  {
    constexpr bool matches = same_abi(rsmi::MemoryTotalFn{}, &rsmi_dev_memory_total_get);
    EXPECT_TRUE(matches);
  }
  {
    constexpr bool matches = same_abi(rsmi::PciIdFn{}, &rsmi_dev_name_get);
    EXPECT_FALSE(matches);
  }
#endif
}

}  // namespace
}  // namespace anygpu
