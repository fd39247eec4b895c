// The manifest at the top of a gathered tree (anygpu.gather/v1): which anygpu gathered it, how,
// when and where; what was copied, recorded by name only, turned into a plain file or left out,
// and why; and a privacy note naming the files that hold identifying data.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gather/copier.h"
#include "gather/redact.h"
#include "model/inventory.h"

namespace anygpu::gather {

inline constexpr std::string_view kManifestSchema = "anygpu.gather/v1";

struct ManifestInput {
  std::string version;               // "anygpu 0.1.0 (…)"
  std::vector<std::string> command;  // argv as given
  std::string root;                  // the host root gathered ("/" for this machine)
  std::chrono::system_clock::time_point when;
  const Inventory* inventory = nullptr;
  const CopyRecord* copied = nullptr;
  const Redactor* redactor = nullptr;
};

nlohmann::ordered_json manifest_json(const ManifestInput& in);

// "2025-06-01T12:00:00Z"
std::string utc_timestamp(std::chrono::system_clock::time_point when);

// The kernel this process runs on, as `uname -srvm` prints it (the host name left out).
std::string running_kernel();

}  // namespace anygpu::gather
