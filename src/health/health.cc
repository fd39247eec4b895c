#include "health/health.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "health/checks.h"
#include "health/coverage.h"
#include "registry/registry.h"
#include "util/strings.h"
#include "vendorlib/apis.h"

namespace anygpu::health {

std::string_view severity_word(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "critical";
  }
  return "info";
}

std::string_view to_string(Health h) {
  switch (h) {
    case Health::ok:
      return "ok";
    case Health::unknown:
      return "unknown";
    case Health::warning:
      return "warning";
    case Health::critical:
      return "critical";
  }
  return "ok";
}

bool DeviceHealth::covered() const {
  bool any = false;
  for (const auto& s : sources) {
    if (s.essential && !s.read) return false;
    any = any || s.read;
  }
  return any;
}

Health DeviceHealth::health() const {
  Health worst = Health::ok;
  for (const auto& f : findings) {
    if (f.severity == Severity::error) return Health::critical;
    if (f.severity == Severity::warning) worst = Health::warning;
  }
  // Nothing found where nothing essential was read is not health.
  if (worst == Health::ok && !covered()) return Health::unknown;
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

namespace {

// The API of the vendor's first library that answers health (NVML, ixml, DCMI, Level Zero).
std::optional<std::string> health_library_api(std::string_view vendor) {
  if (const auto* v = Registry::builtin().vendor(vendor))
    for (const auto& lib : v->libraries)
      if (answers_health(lib.api)) return std::string(lib.api);
  return std::nullopt;
}

// The vendor library's source for one device: read when it answered for the device, else why
// it did not (the vendor's outcome, or a library that loaded but does not list the device).
std::optional<SourceReading> library_source(const DeviceHealth& h, bool suspended,
                                            const LibraryHealth* lib) {
  auto api = health_library_api(h.vendor);
  if (!api) return std::nullopt;
  if (suspended)
    return unread_source(*api, "suspended", "runtime-suspended: not woken to be asked");
  if (!lib) return unread_source(*api, "not-asked", "this command asks no vendor library");
  if (auto it = lib->devices.find(h.pci_bus_id); it != lib->devices.end())
    return read_source(it->second.api);
  auto o = lib->vendors.find(h.vendor);
  if (o == lib->vendors.end()) return unread_source(*api, "not-asked", "no library was asked");
  if (!o->second.reason.empty())
    return unread_source(o->second.api, o->second.reason, o->second.detail);
  return unread_source(o->second.api, "not-listed",
                       cat({o->second.api, " does not list ", h.pci_bus_id}));
}

void check_device(const CheckContext& ctx, const Device& d, const HealthOptions& options,
                  const RulesSource& rules, DeviceHealth& h, std::vector<std::string>& warnings) {
  bool suspended = d.status == DeviceStatus::suspended;
  // A suspended device is never woken: its config space and counters wait.
  if (suspended) {
    h.sources.push_back(unread_source(kPcieSource, "suspended",
                                      "runtime-suspended: not read, so as not to wake it"));
  } else {
    check_pcie(ctx, d, h);
    check_ras(ctx, d, h);
    check_thermal(ctx, d, h);
    if (options.library)
      if (auto it = options.library->devices.find(h.pci_bus_id);
          it != options.library->devices.end()) {
        check_library(it->second, rules(), h.findings);
        for (const auto& e : it->second.errors)
          warnings.push_back(cat({it->second.api, " ", h.pci_bus_id, ": ", e}));
      }
  }
  if (auto lib = library_source(h, suspended, options.library)) h.sources.push_back(*lib);
}

// An SR-IOV virtual function shares its physical function's silicon and link: what is found on
// the PF (an Xid, a fatal AER, a degraded link) is the VF's too (SPEC "Partitions": parent
// findings apply to every partition). Each VF in the report gets the findings of a PF in the
// report, said to be the PF's; the VF's own findings stay as they are.
void apply_physical_function_findings(const Inventory& inv, std::vector<DeviceHealth>& devices) {
  std::map<std::string, std::string> physfn;  // VF bus id -> PF bus id
  for (const auto& d : inv.devices)
    if (d.physfn) physfn[d.pci.address.str()] = *d.physfn;
  std::map<std::string, std::vector<Finding>> pf_findings;
  for (const auto& h : devices) pf_findings[h.pci_bus_id] = h.findings;
  for (auto& h : devices) {
    auto vf = physfn.find(h.pci_bus_id);
    if (vf == physfn.end()) continue;
    auto pf = pf_findings.find(vf->second);
    if (pf == pf_findings.end()) continue;
    for (auto f : pf->second) {
      f.message = cat({"on its physical function ", vf->second, ": ", f.message});
      h.findings.push_back(std::move(f));
    }
  }
}

// The physical functions of the chosen virtual functions that were not chosen themselves.
std::vector<const Device*> physical_functions_not_chosen(const Inventory& inv,
                                                         const std::vector<const Device*>& chosen) {
  std::set<std::string> have, wanted;
  for (const Device* d : chosen) have.insert(d->pci.address.str());
  for (const Device* d : chosen)
    if (d->physfn && !have.count(*d->physfn)) wanted.insert(*d->physfn);
  std::vector<const Device*> out;
  for (const auto& d : inv.devices)
    if (wanted.count(d.pci.address.str())) out.push_back(&d);
  return out;
}

}  // namespace

Result<HealthReport> evaluate_health(const HostRoot& host, const Inventory& inv,
                                     const HealthOptions& options, const HealthRules* given) {
  RulesSource rules = [given]() -> const HealthRules& {
    return given ? *given : builtin_health_rules();
  };
  auto chosen = select_devices(inv, options.devices);
  if (!chosen) return chosen.error();
  HealthReport report;
  CheckContext ctx{host, report.warnings};
  auto examine = [&](const Device& d) {
    DeviceHealth h{d.pci.address.str(), d.vendor, d.index, {}, {}};
    for (const auto& p : d.partitions) h.partitions.push_back(p.id);
    check_device(ctx, d, options, rules, h, report.warnings);
    report.devices.push_back(std::move(h));
  };
  for (const Device* d : *chosen) examine(*d);
  // A VF asked for without its PF still gets the PF's findings: the PF is examined too, and
  // left out of the report once its findings are copied.
  size_t asked = report.devices.size();
  for (const Device* pf : physical_functions_not_chosen(inv, *chosen)) examine(*pf);
  auto kernel_log =
      check_kernel_log(ctx, rules, options.since_seconds, report.devices, inv, report.host);
  report.sources.push_back(kernel_log);
  apply_physical_function_findings(inv, report.devices);
  report.devices.erase(report.devices.begin() + static_cast<std::ptrdiff_t>(asked),
                       report.devices.end());
  for (auto& d : report.devices) {
    d.sources.push_back(kernel_log);
    for (auto& s : d.sources) s.essential = is_essential(d.vendor, s.source);
  }
  if (options.library)
    report.warnings.insert(report.warnings.end(), options.library->warnings.begin(),
                           options.library->warnings.end());
  return report;
}

}  // namespace anygpu::health
