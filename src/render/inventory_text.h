// Human output: one line per device, then runtimes. Warnings are not part of the table: the
// command reports them on stderr.
#pragma once

#include <string>

#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

std::string inventory_to_text(const Inventory& inv);
std::string registry_to_text(const Registry& registry);

}  // namespace anygpu
