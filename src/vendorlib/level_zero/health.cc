#include "vendorlib/level_zero/level_zero.h"

#include <algorithm>

#include "util/strings.h"
#include "vendorlib/level_zero/api.h"

namespace anygpu {

namespace {

static_assert(health::kRasCategories == ze::kRasCategoryCount);

bool ze_ok(ze::Result r, const char* what, health::DeviceLibraryFacts& f) {
  if (r == ze::kSuccess) return true;
  if (r != ze::kErrorUnsupportedFeature) f.errors.push_back(cat({what, ": ", ze::why(r)}));
  return false;
}

// The worst module decides: one stack running on reduced memory is the device's state.
void read_memory(const ze::Api& api, ze::Device dev, health::DeviceLibraryFacts& f) {
  if (!api.memories || !api.mem_state) return;
  for (auto m : ze::enumerate<ze::Mem>(api.memories, dev)) {
    ze::MemState st{};
    st.stype = ze::kStructureTypeMemState;
    if (!ze_ok(api.mem_state(m, &st), "zesMemoryGetState", f)) return;
    if (st.health == ze::kMemHealthUnknown) continue;
    if (st.health < ze::kMemHealthOk || st.health > ze::kMemHealthReplace) {
      f.errors.push_back(cat({"zesMemoryGetState: health ", std::to_string(st.health),
                              " is none of zes_mem_health_t's"}));
      return;
    }
    f.memory_health = std::max<uint32_t>(f.memory_health.value_or(0), st.health);
  }
}

// Every error set (one per type, per tile on multi-tile parts), read without clearing: the
// counters are the driver's since it loaded, shared with every other reader.
void read_ras(const ze::Api& api, ze::Device dev, health::DeviceLibraryFacts& f) {
  if (!api.ras_sets || !api.ras_props || !api.ras_state) return;
  auto sets = ze::enumerate<ze::Ras>(api.ras_sets, dev);
  if (sets.empty()) return;
  health::RasErrors errors;
  for (auto set : sets) {
    ze::RasProperties p{};
    p.stype = ze::kStructureTypeRasProperties;
    if (!ze_ok(api.ras_props(set, &p), "zesRasGetProperties", f)) return;
    if (p.type != ze::kRasErrorTypeCorrectable && p.type != ze::kRasErrorTypeUncorrectable) {
      f.errors.push_back(cat({"zesRasGetProperties: type ", std::to_string(p.type),
                              " is none of zes_ras_error_type_t's"}));
      return;
    }
    ze::RasState st{};
    st.stype = ze::kStructureTypeRasState;
    if (!ze_ok(api.ras_state(set, 0, &st), "zesRasGetState", f)) return;
    auto& into = p.type == ze::kRasErrorTypeCorrectable ? errors.correctable : errors.uncorrectable;
    for (size_t c = 0; c < health::kRasCategories; ++c)
      into[c] = health::saturating_add(into[c], st.category[c]);
  }
  f.ras = errors;
}

}  // namespace

std::optional<std::string> ze::read_health(const DynamicLibrary& lib, const HealthEmit& emit) {
  ze::Api api(lib);
  if (auto failed = ze::start(api, lib)) return failed;
  for (const auto& [key, dev] : ze::devices_by_address(api)) {
    auto address = pci_address_of(key);
    if (!address) continue;
    health::DeviceLibraryFacts f;
    f.api = "level-zero";
    read_memory(api, dev, f);
    read_ras(api, dev, f);
    emit(*address, f);
  }
  return std::nullopt;
}

}  // namespace anygpu
