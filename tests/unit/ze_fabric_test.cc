// Xe Link from Level Zero's fabric extension: the ABI against ze_api.h (libze-dev), and the
// reader against the mock loader tests/mocklibs/ze_fabric.cc through the production load path
// (DynamicLibrary): edges between device vertices or, where those have none, between their
// tiles; a loader without the fabric calls and a failing call leave the links unknown.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>

#include "host/dynamic_library.h"
#include "test_support.h"
#include "vendorlib/level_zero/fabric.h"
#include "vendorlib/level_zero/fabric_abi.h"

#if __has_include(<level_zero/ze_api.h>)
#define ANYGPU_HAVE_ZE_H 1
#include <level_zero/ze_api.h>
#endif

namespace anygpu {
namespace {

TEST(ZeFabricAbi, MatchesZeApiH) {
#ifndef ANYGPU_HAVE_ZE_H
  GTEST_SKIP() << "<level_zero/ze_api.h> not installed (Debian: apt install libze-dev)";
#else
  static_assert(sizeof(ze::FabricVertexProperties) == sizeof(ze_fabric_vertex_exp_properties_t));
  static_assert(offsetof(ze::FabricVertexProperties, type) ==
                offsetof(ze_fabric_vertex_exp_properties_t, type));
  static_assert(offsetof(ze::FabricVertexProperties, remote) ==
                offsetof(ze_fabric_vertex_exp_properties_t, remote));
  static_assert(offsetof(ze::FabricVertexProperties, address) ==
                offsetof(ze_fabric_vertex_exp_properties_t, address));
  static_assert(sizeof(ze::FabricEdgeProperties) == sizeof(ze_fabric_edge_exp_properties_t));
  static_assert(offsetof(ze::FabricEdgeProperties, model) ==
                offsetof(ze_fabric_edge_exp_properties_t, model));
  static_assert(offsetof(ze::FabricEdgeProperties, bandwidth) ==
                offsetof(ze_fabric_edge_exp_properties_t, bandwidth));
  static_assert(offsetof(ze::FabricEdgeProperties, duplexity) ==
                offsetof(ze_fabric_edge_exp_properties_t, duplexity));
  EXPECT_EQ(ze::kStructureTypeFabricVertexProperties,
            ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES);
  EXPECT_EQ(ze::kStructureTypeFabricEdgeProperties, ZE_STRUCTURE_TYPE_FABRIC_EDGE_EXP_PROPERTIES);
  EXPECT_EQ(ze::kFabricVertexDevice, ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE);
  EXPECT_EQ(ze::kFabricVertexSubdevice, ZE_FABRIC_VERTEX_EXP_TYPE_SUBEVICE);
  EXPECT_EQ(ze::kFabricVertexSwitch, ZE_FABRIC_VERTEX_EXP_TYPE_SWITCH);
  EXPECT_EQ(ze::kMaxFabricEdgeModelSize, unsigned{ZE_MAX_FABRIC_EDGE_MODEL_EXP_SIZE});
  EXPECT_EQ(ze::kInitFlagGpuOnly, unsigned{ZE_INIT_FLAG_GPU_ONLY});
#endif
}

ze::XeLinkReading read_with(const char* layout, const std::string& mock = "mock_ze_fabric.so") {
  ::setenv("MOCK_ZE_FABRIC", layout, 1);
  auto lib = DynamicLibrary::open(test::mock_library(mock));
  EXPECT_TRUE(lib.ok());
  auto r = lib.ok() ? ze::read_xe_links(*lib) : ze::XeLinkReading{};
  ::unsetenv("MOCK_ZE_FABRIC");
  return r;
}

const BusKey kMax0{0, 0x29, 0, 0}, kMax1{0, 0x9a, 0, 0};

TEST(ZeFabric, TileEdgesAreSummedPerDevicePair) {
  auto r = read_with("tiles");
  EXPECT_FALSE(r.unknown) << *r.unknown;
  ASSERT_EQ(r.pairs.size(), 1u);  // the Arc A770 has no Xe Link
  EXPECT_EQ(r.pairs[0].a, kMax0);
  EXPECT_EQ(r.pairs[0].b, kMax1);
  EXPECT_EQ(r.pairs[0].edges, 4);  // tile 0 to tile 0 and tile 1 to tile 1, two each
}

TEST(ZeFabric, DeviceEdgesAreCountedAsTheyAre) {
  auto r = read_with("devices");
  EXPECT_FALSE(r.unknown);
  ASSERT_EQ(r.pairs.size(), 1u);
  EXPECT_EQ(r.pairs[0].edges, 3);
}

TEST(ZeFabric, OnlyXeLinkEdgesCount) {
  auto r = read_with("other-model");
  EXPECT_FALSE(r.unknown);
  EXPECT_TRUE(r.pairs.empty());
}

TEST(ZeFabric, AFailingCallLeavesEveryLinkUnknown) {
  auto r = read_with("edge-error");
  ASSERT_TRUE(r.unknown);
  EXPECT_EQ(*r.unknown, "zeFabricEdgeGetExp failed: error 0x7ffffffe");
  EXPECT_TRUE(r.pairs.empty());
}

TEST(ZeFabric, ALoaderWithoutTheFabricCallsSaysSo) {
  // The Sysman-only mock: zeInit but no zeDriverGet or fabric entry points.
  auto r = read_with("tiles", "mock_ze_ok.so");
  ASSERT_TRUE(r.unknown);
  EXPECT_EQ(*r.unknown, "no zeDriverGet in this Level Zero loader");
}

}  // namespace
}  // namespace anygpu
