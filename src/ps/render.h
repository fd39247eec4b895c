// anygpu.processes/v1 JSON and the human table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ps/processes.h"

namespace anygpu::ps {

nlohmann::ordered_json processes_to_json(const std::vector<ProcessInfo>& processes, int hidden);
std::string processes_to_text(const std::vector<ProcessInfo>& processes, int hidden);

}  // namespace anygpu::ps
