#include "health/health.h"

#include <algorithm>
#include <cmath>

#include "health/checks.h"
#include "util/strings.h"

namespace anygpu::health {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::critical:
      return "critical";
  }
  return "info";
}

std::string_view to_string(Health h) {
  switch (h) {
    case Health::ok:
      return "ok";
    case Health::warning:
      return "warning";
    case Health::critical:
      return "critical";
  }
  return "ok";
}

Health DeviceHealth::health() const {
  Health worst = Health::ok;
  for (const auto& f : findings) {
    if (f.severity == Severity::critical) return Health::critical;
    if (f.severity == Severity::warning) worst = Health::warning;
  }
  return worst;
}

bool HealthReport::any_critical() const {
  for (const auto& d : devices)
    if (d.health() == Health::critical) return true;
  return false;
}

Health HealthReport::worst() const {
  Health worst = Health::ok;
  for (const auto& d : devices) worst = std::max(worst, d.health());
  return worst;
}

Result<double> parse_duration(std::string_view text) {
  auto t = trim(text);
  double scale = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 's':
        t.remove_suffix(1);
        break;
      case 'm':
        scale = 60;
        t.remove_suffix(1);
        break;
      case 'h':
        scale = 3600;
        t.remove_suffix(1);
        break;
      case 'd':
        scale = 86400;
        t.remove_suffix(1);
        break;
      default:
        break;
    }
  }
  // At most 100 years: any longer window is a typo, and its seconds overflow the nanosecond clocks
  // the window is later compared with (signed 64-bit nanoseconds end after 292 years).
  constexpr double kMaxSeconds = 36500.0 * 86400;
  auto v = parse_double(t);
  if (!v || !std::isfinite(*v) || *v < 0 || *v * scale > kMaxSeconds)
    return bad_input(cat(
        {"--since ", text, ": expected a duration such as 30s, 15m, 2h or 7d, at most 36500d"}));
  return *v * scale;
}

Result<std::vector<const Device*>> select_devices(const Inventory& inv,
                                                  const std::vector<std::string>& selectors) {
  std::vector<const Device*> out;
  auto add = [&](const Device* d) {
    for (auto* seen : out)
      if (seen == d) return;
    out.push_back(d);
  };
  if (selectors.empty()) {
    for (const auto& d : inv.devices) out.push_back(&d);
    return out;
  }
  bool one_vendor = true;
  for (const auto& d : inv.devices)
    if (d.vendor != inv.devices.front().vendor) one_vendor = false;
  for (const auto& raw : selectors) {
    auto sel = to_lower(trim(raw));
    const Device* hit = nullptr;
    auto colon = sel.find(':');
    auto index = parse_uint(sel);
    for (const auto& d : inv.devices) {
      auto id = d.pci.address.str();
      bool by_bus = id == sel || id.substr(5) == sel;  // with or without the domain
      bool by_vendor_index = colon != std::string::npos && sel.substr(0, colon) == d.vendor &&
                             parse_uint(sel.substr(colon + 1)) == uint64_t(d.index);
      bool by_index = index && one_vendor && *index == uint64_t(d.index);
      if (by_bus || by_vendor_index || by_index) hit = &d;
    }
    if (!hit && index && !one_vendor)
      return bad_input(cat({"--device ", raw,
                            ": this host has devices of several vendors; "
                            "name one as VENDOR:INDEX or by bus id"}));
    if (!hit) return host_error(cat({"--device ", raw, ": no such device on this host"}));
    add(hit);
  }
  return out;
}

Result<HealthReport> evaluate_health(const HostRoot& host, const Inventory& inv,
                                     const HealthOptions& options, const HealthRules* given) {
  RulesSource rules = [given]() -> const HealthRules& {
    return given ? *given : builtin_health_rules();
  };
  auto chosen = select_devices(inv, options.devices);
  if (!chosen) return chosen.error();
  HealthReport report;
  CheckContext ctx{host, report.warnings};
  for (const Device* d : *chosen) {
    DeviceHealth h{d->pci.address.str(), d->vendor, d->index, {}};
    // A suspended device is never woken: its config space and counters wait.
    if (d->status != DeviceStatus::suspended) {
      check_pcie(ctx, *d, h.findings);
      check_ras(ctx, *d, h.findings);
      check_thermal(ctx, *d, h.findings);
      if (options.library)
        if (auto it = options.library->devices.find(h.pci_bus_id);
            it != options.library->devices.end()) {
          check_library(it->second, rules(), h.findings);
          for (const auto& e : it->second.errors)
            report.warnings.push_back(cat({it->second.api, " ", h.pci_bus_id, ": ", e}));
        }
    }
    report.devices.push_back(std::move(h));
  }
  check_kernel_log(ctx, rules, options.since_seconds, report.devices, inv, report.host);
  if (options.library)
    report.warnings.insert(report.warnings.end(), options.library->warnings.begin(),
                           options.library->warnings.end());
  return report;
}

}  // namespace anygpu::health
