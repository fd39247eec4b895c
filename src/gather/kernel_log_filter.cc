#include "gather/kernel_log_filter.h"

#include <vector>

#include "health/kmsg.h"
#include "health/rules.h"
#include "registry/registry.h"

namespace anygpu::gather {

namespace {

// Drivers whose records are accelerator evidence: every registry vendor's (and its id, which
// some drivers print), and every driver the health rules name.
const std::set<std::string>& gpu_drivers() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    for (const auto& v : Registry::builtin().vendors()) {
      out.emplace(v.id);
      for (auto d : v.drivers) out.emplace(d);
    }
    for (const auto& rule : health::builtin_health_rules().messages) out.insert(rule.driver);
    return out;
  }();
  return names;
}

bool has_vendor_marker(std::string_view m) {
  for (const auto& v : Registry::builtin().vendors()) {
    for (auto p : v.kmsg_starts)
      if (m.starts_with(p)) return true;
    for (auto p : v.kmsg_contains)
      if (m.find(p) != std::string_view::npos) return true;
  }
  return false;
}

bool is_gpu_record(const health::KmsgRecord& r, const std::set<std::string>& bus_ids) {
  if (health::parse_xid(r.message)) return true;
  if (r.device && bus_ids.count(*r.device)) return true;
  if (r.driver && gpu_drivers().count(*r.driver)) return true;
  return has_vendor_marker(r.message) || r.message.find("[drm") != std::string::npos;
}

// The log cut into records: a header line and the dictionary lines (" KEY=VALUE") after it.
std::vector<std::string_view> raw_records(std::string_view log) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t at = 0; at < log.size();) {
    size_t nl = log.find('\n', at);
    size_t next = nl == std::string_view::npos ? log.size() : nl + 1;
    bool continuation = log[at] == ' ';
    if (!continuation && at > start) {
      out.push_back(log.substr(start, at - start));
      start = at;
    }
    at = next;
  }
  if (start < log.size()) out.push_back(log.substr(start));
  return out;
}

}  // namespace

KernelLogSplit keep_gpu_records(std::string_view log, const std::set<std::string>& gpu_bus_ids) {
  KernelLogSplit out;
  for (auto raw : raw_records(log)) {
    auto parsed = health::parse_kmsg(raw);
    if (parsed.records.size() + static_cast<size_t>(parsed.malformed) == 0) continue;  // blank
    ++out.records;
    if (parsed.records.size() != 1 || !is_gpu_record(parsed.records.front(), gpu_bus_ids)) continue;
    ++out.kept_records;
    out.kept += raw;
    if (out.kept.back() != '\n') out.kept += '\n';
  }
  return out;
}

}  // namespace anygpu::gather
