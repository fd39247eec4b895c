// Level Zero's experimental fabric extension ("ZE_experimental_fabric", core API ze_api.h):
// vertices are devices, sub-devices (tiles) and switches, edges the physical links between
// them, Xe Link on Data Center GPU Max (facts F-63). Layouts and values from Level Zero's
// ze_api.h (Debian libze-dev 1.8.12, /usr/include/level_zero/ze_api.h, section "Fabric
// Topology Discovery" — tests/unit/ze_fabric_test.cc compares them when it is installed) and
// the specification oneapi-src/level-zero-spec@60c28d2051071fdd484a72306c43fa0519a515b0
// scripts/core/EXT_Exp_Fabric.rst.
#pragma once

#include <cstdint>

#include "vendorlib/level_zero/abi.h"

namespace anygpu::ze {

inline constexpr uint32_t kInitFlagGpuOnly = 1;  // ZE_INIT_FLAG_GPU_ONLY
inline constexpr int kStructureTypeFabricVertexProperties =
    0x0002000B;  // ..._FABRIC_VERTEX_EXP_PROPERTIES
inline constexpr int kStructureTypeFabricEdgeProperties =
    0x0002000C;                                   // ..._FABRIC_EDGE_EXP_PROPERTIES
inline constexpr int kFabricVertexDevice = 1;     // ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE
inline constexpr int kFabricVertexSubdevice = 2;  // ZE_FABRIC_VERTEX_EXP_TYPE_SUBEVICE (sic)
inline constexpr int kFabricVertexSwitch = 3;     // ZE_FABRIC_VERTEX_EXP_TYPE_SWITCH
inline constexpr unsigned kMaxFabricEdgeModelSize = 256;  // ZE_MAX_FABRIC_EDGE_MODEL_EXP_SIZE

struct CoreDriverSt;
struct FabricVertexSt;
struct FabricEdgeSt;
using CoreDriver = CoreDriverSt*;      // ze_driver_handle_t
using FabricVertex = FabricVertexSt*;  // ze_fabric_vertex_handle_t
using FabricEdge = FabricEdgeSt*;      // ze_fabric_edge_handle_t

struct Uuid {  // ze_uuid_t
  uint8_t id[16];
};

struct FabricVertexPciAddress {  // ze_fabric_vertex_pci_exp_address_t
  uint32_t domain, bus, device, function;
};

struct FabricVertexProperties {  // ze_fabric_vertex_exp_properties_t
  int stype;
  void* pNext;
  Uuid uuid;
  int type;        // ze_fabric_vertex_exp_type_t
  uint8_t remote;  // ze_bool_t: on another node
  FabricVertexPciAddress address;
};

struct FabricEdgeProperties {  // ze_fabric_edge_exp_properties_t
  int stype;
  void* pNext;
  Uuid uuid;
  char model[kMaxFabricEdgeModelSize];  // "XeLink"; "unkown" (sic) when not known
  uint32_t bandwidth;
  int bandwidthUnit;  // ze_bandwidth_unit_t
  uint32_t latency;
  int latencyUnit;  // ze_latency_unit_t
  int duplexity;    // ze_fabric_edge_exp_duplexity_t
};

using CoreInitFn = Result (*)(uint32_t);                                     // zeInit
using CoreDriverGetFn = Result (*)(uint32_t*, CoreDriver*);                  // zeDriverGet
using FabricVertexGetFn = Result (*)(CoreDriver, uint32_t*, FabricVertex*);  // zeFabricVertexGetExp
using FabricSubVerticesFn = Result (*)(FabricVertex, uint32_t*,
                                       FabricVertex*);  // zeFabricVertexGetSubVerticesExp
using FabricVertexPropertiesFn =
    Result (*)(FabricVertex, FabricVertexProperties*);  // zeFabricVertexGetPropertiesExp
using FabricEdgeGetFn = Result (*)(FabricVertex, FabricVertex, uint32_t*,
                                   FabricEdge*);  // zeFabricEdgeGetExp
using FabricEdgePropertiesFn = Result (*)(FabricEdge,
                                          FabricEdgeProperties*);  // zeFabricEdgeGetPropertiesExp

}  // namespace anygpu::ze
