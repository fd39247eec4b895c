// anygpu.processes/v1 JSON and the human table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/unit_lock.h"
#include "ps/processes.h"

namespace anygpu::ps {

// `locks`: the devices `anygpu run`s hold locked (host/unit_lock.h), by key; absent when no lock
// directory applies (a --root replay), and then not shown (unknown is not "none").
using Locks = std::optional<std::map<std::string, LockHolder>>;

nlohmann::ordered_json processes_to_json(const std::vector<ProcessInfo>& processes, int hidden,
                                         const Locks& locks = std::nullopt);
std::string processes_to_text(const std::vector<ProcessInfo>& processes, int hidden,
                              const Locks& locks = std::nullopt);

}  // namespace anygpu::ps
