// `anygpu topo` output: anygpu.topology/v1 JSON and one matrix like `nvidia-smi topo -m`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topo/topology.h"

namespace anygpu {

// "amd0", "nvidia3": vendor and per-vendor index, the matrix's row and column names.
std::string device_label(const Device& d);
// The matrix cell between two devices: "XGMI" for a link, else the PCIe class.
std::string device_cell(const Topology& t, size_t a, size_t b);

// `warnings`: what discovery and the topology reading went on without, in that order.
nlohmann::ordered_json topology_to_json(const Topology& t,
                                        const std::vector<std::string>& warnings);
std::string topology_to_text(const Topology& t);

}  // namespace anygpu
