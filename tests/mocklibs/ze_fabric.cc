// Mock Level Zero loader answering the fabric extension's calls (src/vendorlib/level_zero/
// fabric_abi.h) for the intel-max-arc fixture: vertices for its three GPUs (the Arc A770 at
// 0000:06:00.0 and the two Data Center GPU Max 1550 at 0000:29:00.0 and 0000:9a:00.0), each Max
// with two tile sub-vertices. How many Xe Link edges join them is synthetic (no public capture
// of a Max host's fabric was found); MOCK_ZE_FABRIC picks a layout:
//   tiles (default)  edges only between tiles: tile 0 to tile 0 and tile 1 to tile 1, two each
//   devices          three edges between the two Max device vertices, none between tiles
//   other-model      the device edges' model is "unkown" (the spec's spelling): no Xe Link
//   edge-error       zeFabricEdgeGetExp fails
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "vendorlib/level_zero/fabric_abi.h"

#define MOCK_ZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace anygpu::ze {
struct CoreDriverSt {
  int id;
};
struct FabricVertexSt {
  uint32_t bus;
  int tile;  // -1: the device itself
};
struct FabricEdgeSt {
  const char* model;
};
}  // namespace anygpu::ze

namespace {

using namespace anygpu;

constexpr ze::Result kErrorUninitialized = 0x78000001;       // ZE_RESULT_ERROR_UNINITIALIZED
constexpr ze::Result kErrorInvalidNullPointer = 0x78000007;  // ZE_RESULT_ERROR_INVALID_NULL_POINTER
constexpr ze::Result kErrorInvalidNullHandle = 0x78000005;   // ZE_RESULT_ERROR_INVALID_NULL_HANDLE
constexpr ze::Result kErrorUnknown = 0x7ffffffe;             // ZE_RESULT_ERROR_UNKNOWN

ze::CoreDriverSt g_driver{1};
ze::FabricVertexSt g_devices[] = {{0x06, -1}, {0x29, -1}, {0x9a, -1}};
ze::FabricVertexSt g_tiles[] = {{0x29, 0}, {0x29, 1}, {0x9a, 0}, {0x9a, 1}};
ze::FabricEdgeSt g_xelink[] = {{"XeLink"}, {"XeLink"}, {"XeLink"}};
ze::FabricEdgeSt g_unknown[] = {{"unkown"}, {"unkown"}, {"unkown"}};
bool g_init = false;

std::string layout() {
  const char* v = std::getenv("MOCK_ZE_FABRIC");
  return v && *v ? v : "tiles";
}

bool known(ze::FabricVertex v) {
  for (auto& d : g_devices)
    if (v == &d) return true;
  for (auto& t : g_tiles)
    if (v == &t) return true;
  return false;
}

template <class H>
ze::Result answer(uint32_t* count, H* out, H const* from, uint32_t n) {
  if (!count) return kErrorInvalidNullPointer;
  if (!out || *count == 0) {
    *count = n;
    return ze::kSuccess;
  }
  uint32_t k = *count < n ? *count : n;
  for (uint32_t i = 0; i < k; ++i) out[i] = from[i];
  *count = k;
  return ze::kSuccess;
}

// How many edges join two vertices in the chosen layout.
uint32_t edges_between(ze::FabricVertex a, ze::FabricVertex b) {
  bool max_pair = a->bus != b->bus && a->bus != 0x06 && b->bus != 0x06;
  if (!max_pair) return 0;
  if (layout() == "tiles") return a->tile >= 0 && a->tile == b->tile ? 2 : 0;
  return a->tile < 0 && b->tile < 0 ? 3 : 0;
}

}  // namespace

MOCK_ZE_EXPORT ze::Result zeInit(uint32_t /*flags*/) {
  g_init = true;
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zeDriverGet(uint32_t* count, ze::CoreDriver* drivers) {
  if (!g_init) return kErrorUninitialized;
  ze::CoreDriver d = &g_driver;
  return answer(count, drivers, &d, 1);
}

MOCK_ZE_EXPORT ze::Result zeFabricVertexGetExp(ze::CoreDriver driver, uint32_t* count,
                                               ze::FabricVertex* vertices) {
  if (!g_init) return kErrorUninitialized;
  if (driver != &g_driver) return kErrorInvalidNullHandle;
  ze::FabricVertex all[] = {&g_devices[0], &g_devices[1], &g_devices[2]};
  return answer(count, vertices, all, 3);
}

MOCK_ZE_EXPORT ze::Result zeFabricVertexGetSubVerticesExp(ze::FabricVertex v, uint32_t* count,
                                                          ze::FabricVertex* subs) {
  if (!known(v)) return kErrorInvalidNullHandle;
  ze::FabricVertex tiles[2] = {nullptr, nullptr};
  uint32_t n = 0;
  for (auto& t : g_tiles)
    if (v->tile < 0 && t.bus == v->bus) tiles[n++] = &t;
  return answer(count, subs, tiles, n);
}

MOCK_ZE_EXPORT ze::Result zeFabricVertexGetPropertiesExp(ze::FabricVertex v,
                                                         ze::FabricVertexProperties* p) {
  if (!known(v)) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  std::memset(&p->uuid, 0, sizeof p->uuid);
  p->uuid.id[0] = static_cast<uint8_t>(v->bus);
  p->type = v->tile < 0 ? ze::kFabricVertexDevice : ze::kFabricVertexSubdevice;
  p->remote = 0;
  p->address = {0, v->bus, 0, 0};
  return ze::kSuccess;
}

MOCK_ZE_EXPORT ze::Result zeFabricEdgeGetExp(ze::FabricVertex a, ze::FabricVertex b,
                                             uint32_t* count, ze::FabricEdge* edges) {
  if (!known(a) || !known(b)) return kErrorInvalidNullHandle;
  if (layout() == "edge-error") return kErrorUnknown;
  ze::FabricEdge list[3];
  auto& from = layout() == "other-model" ? g_unknown : g_xelink;
  for (int i = 0; i < 3; ++i) list[i] = &from[i];
  return answer(count, edges, list, edges_between(a, b));
}

MOCK_ZE_EXPORT ze::Result zeFabricEdgeGetPropertiesExp(ze::FabricEdge e,
                                                       ze::FabricEdgeProperties* p) {
  if (!e) return kErrorInvalidNullHandle;
  if (!p) return kErrorInvalidNullPointer;
  std::memset(p->model, 0, sizeof p->model);
  std::strncpy(p->model, e->model, sizeof p->model - 1);
  p->bandwidth = 0;
  p->bandwidthUnit = 0;
  p->latency = 1;
  p->latencyUnit = 3;  // ZE_LATENCY_UNIT_HOP
  p->duplexity = 2;    // ZE_FABRIC_EDGE_EXP_DUPLEXITY_FULL_DUPLEX
  return ze::kSuccess;
}

static_assert(std::is_same_v<decltype(&zeInit), ze::CoreInitFn>);
static_assert(std::is_same_v<decltype(&zeDriverGet), ze::CoreDriverGetFn>);
static_assert(std::is_same_v<decltype(&zeFabricVertexGetExp), ze::FabricVertexGetFn>);
static_assert(std::is_same_v<decltype(&zeFabricVertexGetSubVerticesExp), ze::FabricSubVerticesFn>);
static_assert(
    std::is_same_v<decltype(&zeFabricVertexGetPropertiesExp), ze::FabricVertexPropertiesFn>);
static_assert(std::is_same_v<decltype(&zeFabricEdgeGetExp), ze::FabricEdgeGetFn>);
static_assert(std::is_same_v<decltype(&zeFabricEdgeGetPropertiesExp), ze::FabricEdgePropertiesFn>);
