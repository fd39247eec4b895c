// A doctor finding: what is wrong (or worth knowing), why, and the command that fixes it.
#pragma once

#include <string>
#include <string_view>

namespace anygpu {

enum class Severity { error, warning, info };

inline std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "info";
  }
  return "info";
}

struct Finding {
  std::string id;  // stable, dotted: "driver.not-loaded", "libs.shadowed", "torch.cuda-too-new"
  Severity severity = Severity::info;
  std::string title;
  std::string detail;
  std::string fix;  // empty when there is nothing to do
};

}  // namespace anygpu
