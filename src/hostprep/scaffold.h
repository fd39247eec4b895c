// `anygpu init`: the files of a vendor-agnostic experiment, from templates embedded at build
// time (data/init/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

struct TemplateFile {
  std::string_view path;  // relative to the scaffold directory
  std::string_view content;
  bool executable;
};

// The embedded templates, in a fixed order.
std::vector<TemplateFile> init_templates();

struct ScaffoldResult {
  std::vector<std::string> written;   // relative paths
  std::vector<std::string> existing;  // relative paths that blocked the write (without force)
};

// Writes every template beneath `dir` (created if absent). Without `force`, nothing is written
// when any target exists: `existing` lists them. Each file is written atomically.
Result<ScaffoldResult> scaffold_experiment(const std::string& dir, bool force);

}  // namespace anygpu
