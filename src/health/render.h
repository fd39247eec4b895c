// anygpu.health/v1 JSON and the human table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "health/report.h"

namespace anygpu::health {

nlohmann::ordered_json health_to_json(const HealthReport& report);
std::string health_to_text(const HealthReport& report);

}  // namespace anygpu::health
