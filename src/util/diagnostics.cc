#include "util/diagnostics.h"

#include <algorithm>

namespace anygpu {

std::string Diagnostic::text() const {
  return where.empty() ? message : where + ": " + message;
}

bool Diagnostics::add(Diagnostic d) {
  // By what the user reads: the same text is the same diagnostic however it was split.
  auto text = d.text();
  auto same = [&](const Diagnostic& held) {
    return held.severity == d.severity && held.text() == text;
  };
  if (std::any_of(items_.begin(), items_.end(), same)) return false;
  items_.push_back(std::move(d));
  return true;
}

void Diagnostics::add(const Diagnostics& other) {
  for (const auto& d : other.items_) add(d);
}

std::vector<std::string> Diagnostics::warnings() const {
  std::vector<std::string> out;
  for (const auto& d : items_)
    if (d.severity == Diagnostic::Severity::warning) out.push_back(d.text());
  return out;
}

}  // namespace anygpu
