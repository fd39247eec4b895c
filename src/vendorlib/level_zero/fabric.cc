#include "vendorlib/level_zero/fabric.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "util/strings.h"
#include "vendorlib/level_zero/api.h"
#include "vendorlib/level_zero/fabric_abi.h"

namespace anygpu::ze {

namespace {

struct FabricApi {
  explicit FabricApi(const DynamicLibrary& lib)
      : init(lib.symbol<CoreInitFn>({"zeInit"})),
        drivers(lib.symbol<CoreDriverGetFn>({"zeDriverGet"})),
        vertices(lib.symbol<FabricVertexGetFn>({"zeFabricVertexGetExp"})),
        sub_vertices(lib.symbol<FabricSubVerticesFn>({"zeFabricVertexGetSubVerticesExp"})),
        vertex_props(lib.symbol<FabricVertexPropertiesFn>({"zeFabricVertexGetPropertiesExp"})),
        edges(lib.symbol<FabricEdgeGetFn>({"zeFabricEdgeGetExp"})),
        edge_props(lib.symbol<FabricEdgePropertiesFn>({"zeFabricEdgeGetPropertiesExp"})) {}
  CoreInitFn init;
  CoreDriverGetFn drivers;
  FabricVertexGetFn vertices;
  FabricSubVerticesFn sub_vertices;
  FabricVertexPropertiesFn vertex_props;
  FabricEdgeGetFn edges;
  FabricEdgePropertiesFn edge_props;

  // The first entry point this loader lacks, or nullptr.
  const char* missing() const {
    if (!init) return "zeInit";
    if (!drivers) return "zeDriverGet";
    if (!vertices) return "zeFabricVertexGetExp";
    if (!vertex_props) return "zeFabricVertexGetPropertiesExp";
    if (!edges) return "zeFabricEdgeGetExp";
    if (!edge_props) return "zeFabricEdgeGetPropertiesExp";
    return nullptr;
  }
};

struct DeviceVertex {
  BusKey address;
  FabricVertex vertex;
  std::vector<FabricVertex> tiles;
};

// The Xe Link edges between two vertices; nullopt when a call fails.
std::optional<int> xe_edges(const FabricApi& api, FabricVertex a, FabricVertex b,
                            std::string& error) {
  uint32_t n = 0;
  if (auto r = api.edges(a, b, &n, nullptr); r != kSuccess) {
    error = "zeFabricEdgeGetExp failed: " + why(r);
    return std::nullopt;
  }
  if (n == 0) return 0;
  if (n > 4096) {
    error = cat({"zeFabricEdgeGetExp reports ", std::to_string(n), " edges between two vertices"});
    return std::nullopt;
  }
  std::vector<FabricEdge> list(n);
  if (auto r = api.edges(a, b, &n, list.data()); r != kSuccess) {
    error = "zeFabricEdgeGetExp failed: " + why(r);
    return std::nullopt;
  }
  list.resize(std::min<size_t>(n, list.size()));
  int count = 0;
  for (auto e : list) {
    FabricEdgeProperties p{};
    p.stype = kStructureTypeFabricEdgeProperties;
    if (auto r = api.edge_props(e, &p); r != kSuccess) {
      error = "zeFabricEdgeGetPropertiesExp failed: " + why(r);
      return std::nullopt;
    }
    if (std::string(p.model, strnlen(p.model, sizeof p.model)) == "XeLink") ++count;
  }
  return count;
}

}  // namespace

XeLinkReading read_xe_links(const DynamicLibrary& lib) {
  XeLinkReading out;
  FabricApi api(lib);
  if (const char* m = api.missing()) {
    out.unknown = cat({"no ", m, " in this Level Zero loader"});
    return out;
  }
  if (auto r = api.init(kInitFlagGpuOnly); r != kSuccess) {
    out.unknown = "zeInit failed: " + why(r);
    return out;
  }
  std::vector<DeviceVertex> devices;
  uint32_t ndrv = 0;
  std::vector<CoreDriver> drivers;
  if (auto r = api.drivers(&ndrv, nullptr); r != kSuccess) {
    out.unknown = "zeDriverGet failed: " + why(r);
    return out;
  }
  if (ndrv > 64) {
    out.unknown = cat({"zeDriverGet reports ", std::to_string(ndrv), " drivers"});
    return out;
  }
  drivers.resize(ndrv);
  if (ndrv > 0 && api.drivers(&ndrv, drivers.data()) != kSuccess) ndrv = 0;
  drivers.resize(std::min<size_t>(ndrv, drivers.size()));
  for (auto drv : drivers) {
    for (auto v : enumerate<FabricVertex>(api.vertices, drv)) {
      FabricVertexProperties p{};
      p.stype = kStructureTypeFabricVertexProperties;
      if (auto r = api.vertex_props(v, &p); r != kSuccess) {
        out.unknown = "zeFabricVertexGetPropertiesExp failed: " + why(r);
        return out;
      }
      if (p.type != kFabricVertexDevice || p.remote) continue;
      DeviceVertex d{
          {p.address.domain, p.address.bus, p.address.device, p.address.function}, v, {}};
      if (api.sub_vertices) d.tiles = enumerate<FabricVertex>(api.sub_vertices, v);
      devices.push_back(std::move(d));
    }
  }
  std::sort(devices.begin(), devices.end(),
            [](const DeviceVertex& x, const DeviceVertex& y) { return x.address < y.address; });
  for (const auto& d : devices) out.devices.push_back(d.address);
  std::string error;
  for (size_t i = 0; i < devices.size(); ++i)
    for (size_t j = i + 1; j < devices.size(); ++j) {
      auto direct = xe_edges(api, devices[i].vertex, devices[j].vertex, error);
      bool ok = direct.has_value();
      int n = direct.value_or(0);
      if (ok && n == 0)  // none between the devices themselves: their tiles' edges, summed
        for (auto ta : devices[i].tiles)
          for (auto tb : devices[j].tiles) {
            auto m = ok ? xe_edges(api, ta, tb, error) : std::nullopt;
            ok = ok && m.has_value();
            n += m.value_or(0);
          }
      if (!ok) {
        out.pairs.clear();
        out.unknown = error;
        return out;
      }
      if (n > 0) out.pairs.push_back({devices[i].address, devices[j].address, n});
    }
  return out;
}

}  // namespace anygpu::ze
