// Findings over a sliding window, for series that show recovery: a finding counts while it was
// seen in an evaluation within the last `window`, and stops counting once it has not been seen
// for that long (unlike a counter that only ever grows). Pure; the caller supplies the clock.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "health/report.h"

namespace anygpu::health {

struct WindowCount {
  std::string pci_bus_id;  // empty for a host finding
  std::string vendor;      // empty for a host finding
  int index = 0;
  std::string code;
  Severity severity = Severity::info;
  size_t findings = 0;  // distinct findings seen within the window
};

class FindingWindow {
 public:
  using Clock = std::chrono::steady_clock;
  explicit FindingWindow(std::chrono::seconds window) : window_(window) {}

  // Records every finding of one evaluation as seen at `at`, and forgets what aged out.
  void observe(Clock::time_point at, const HealthReport& report);
  // Per device (or host) and code: the distinct findings seen within the window ending at `at`,
  // in device then code order.
  std::vector<WindowCount> counts(Clock::time_point at) const;
  std::chrono::seconds window() const { return window_; }

 private:
  // A finding's identity: where, what, and its message without the repeat count, so the same
  // event seen again (" (3 times)") stays one finding.
  using Key = std::tuple<std::string, std::string, int, std::string, Severity, std::string>;
  std::chrono::seconds window_;
  std::map<Key, Clock::time_point> last_seen_;
};

// "Xid 79: … (3 times)" -> "Xid 79: …"
std::string_view without_repeat_count(std::string_view message);

}  // namespace anygpu::health
