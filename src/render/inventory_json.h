// anygpu.inventory/v1 and the registry as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

nlohmann::ordered_json inventory_to_json(const Inventory& inv);
nlohmann::ordered_json registry_to_json(const Registry& registry);

}  // namespace anygpu
