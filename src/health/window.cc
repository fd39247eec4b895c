#include "health/window.h"

#include <cctype>

namespace anygpu::health {

std::string_view without_repeat_count(std::string_view m) {
  constexpr std::string_view tail = " times)";
  if (m.size() < tail.size() || m.substr(m.size() - tail.size()) != tail) return m;
  auto open = m.rfind(" (");
  if (open == std::string_view::npos) return m;
  auto digits = m.substr(open + 2, m.size() - tail.size() - open - 2);
  if (digits.empty()) return m;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return m;
  return m.substr(0, open);
}

void FindingWindow::observe(Clock::time_point at, const HealthReport& report) {
  for (const auto& d : report.devices)
    for (const auto& f : d.findings)
      last_seen_[{d.pci_bus_id, d.vendor, d.index, f.code, f.severity,
                  std::string(without_repeat_count(f.message))}] = at;
  for (const auto& f : report.host)
    last_seen_[{"", "", 0, f.code, f.severity, std::string(without_repeat_count(f.message))}] = at;
  for (auto it = last_seen_.begin(); it != last_seen_.end();)
    it = at - it->second > window_ ? last_seen_.erase(it) : std::next(it);
}

std::vector<WindowCount> FindingWindow::counts(Clock::time_point at) const {
  std::vector<WindowCount> out;
  for (const auto& [key, seen] : last_seen_) {
    if (at - seen > window_) continue;
    const auto& [bus, vendor, index, code, severity, message] = key;
    // Keys are ordered, so one device's findings of one code and severity are adjacent.
    if (!out.empty() && out.back().pci_bus_id == bus && out.back().code == code &&
        out.back().severity == severity) {
      ++out.back().findings;
      continue;
    }
    out.push_back({bus, vendor, index, code, severity, 1});
  }
  return out;
}

}  // namespace anygpu::health
