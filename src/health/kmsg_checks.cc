#include <map>

#include "health/checks.h"
#include "health/health.h"
#include "health/kernel_log.h"
#include "health/kmsg.h"
#include "host/paths.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu::health {

namespace {

using paths::kUptime;

// The vendor whose registry `kmsg` markers the message carries (NVIDIA's "NVRM:", Ascend's
// "[ascend]" tag).
std::string marked_vendor(std::string_view m) {
  for (const auto& v : Registry::builtin().vendors()) {
    for (auto p : v.kmsg_starts)
      if (m.starts_with(p)) return std::string(v.id);
    for (auto p : v.kmsg_contains)
      if (m.find(p) != std::string_view::npos) return std::string(v.id);
  }
  return {};
}

// The driver that printed a record: dev_printk's prefix, a vendor's marker, or the module in
// DRM's "[drm:function [module]]".
std::string record_driver(const KmsgRecord& r) {
  if (r.driver) return *r.driver;
  std::string_view m = r.message;
  if (auto v = marked_vendor(m); !v.empty()) return v;
  if (auto drm = m.find("[drm:"); drm != std::string_view::npos) {
    auto open = m.find(" [", drm);
    auto close = m.find("]]", drm);
    if (open != std::string_view::npos && close != std::string_view::npos && open < close)
      return std::string(m.substr(open + 2, close - open - 2));
  }
  return {};
}

bool device_matches_driver(const Device& d, std::string_view driver) {
  return d.vendor == driver || (d.driver && d.driver->name == driver);
}

struct Event {
  Finding finding;
  int count = 0;
};

// Events keyed by (device index in `devices` or -1 for the host, code, message).
using EventMap = std::map<std::tuple<int, std::string, std::string>, Event>;

void note(EventMap& events, int device, Finding f) {
  auto& e = events[{device, f.code, f.message}];
  ++e.count;
  e.finding = std::move(f);  // the latest record is the evidence
}

int device_by_bus(const std::vector<DeviceHealth>& devices, std::string_view bus) {
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& id = devices[i].pci_bus_id;
    // Xid prints domain:bus:device without the function.
    if (id == bus || (id.size() > bus.size() && id.starts_with(bus) && id[bus.size()] == '.'))
      return static_cast<int>(i);
  }
  return -1;
}

// A device of the inventory that --device left out: its events are not the host's.
bool listed_elsewhere(const Inventory& inv, std::string_view bus) {
  for (const auto& d : inv.devices) {
    auto id = d.pci.address.str();
    if (id == bus || (id.size() > bus.size() && id.starts_with(bus) && id[bus.size()] == '.'))
      return true;
  }
  return false;
}

int only_device_of(const std::vector<DeviceHealth>& devices, const Inventory& inv,
                   std::string_view driver) {
  int found = -1;
  for (size_t i = 0; i < devices.size(); ++i) {
    for (const auto& d : inv.devices) {
      if (d.pci.address.str() != devices[i].pci_bus_id || !device_matches_driver(d, driver))
        continue;
      if (found >= 0) return -1;  // ambiguous: never blame the wrong device
      found = static_cast<int>(i);
    }
  }
  return found;
}

// "/dev/kmsg #1201 [5123s]: …" (or "syslog(2) line 12 [5123s]: …").
std::string evidence_of(std::string_view prefix, const KmsgRecord& r) {
  return cat({prefix, std::to_string(r.sequence), " [", std::to_string(r.timestamp_us / 1000000),
              "s]: ", r.message});
}

void classify(const KmsgRecord& r, std::string_view prefix, const HealthRules& rules,
              const Inventory& inv, const std::vector<DeviceHealth>& devices, EventMap& events) {
  if (auto x = parse_xid(r.message)) {
    const auto& rule = rules.for_xid(x->number);
    std::string name = x->switch_event ? "SXid" : "Xid";
    Finding f{x->switch_event ? "sxid" : "xid", rule.severity,
              cat({name, " ", std::to_string(x->number), ": ",
                   rule.summary.empty() ? x->detail : rule.summary}),
              evidence_of(prefix, r), rule.action};
    if (x->switch_event) f.action = "check the NVSwitch/fabric manager logs (nvidia-smi nvlink)";
    int at = x->switch_event ? -1 : device_by_bus(devices, x->bus);
    if (at < 0 && !x->switch_event && listed_elsewhere(inv, x->bus)) return;
    note(events, at, std::move(f));
    return;
  }
  auto driver = record_driver(r);
  if (driver.empty()) return;
  for (const auto& rule : rules.messages) {
    if (rule.driver != driver) continue;
    bool all = true;
    for (const auto& piece : rule.contains)
      if (r.message.find(piece) == std::string::npos) all = false;
    if (!all) continue;
    int at = r.device ? device_by_bus(devices, *r.device) : only_device_of(devices, inv, driver);
    if (at < 0 && r.device && listed_elsewhere(inv, *r.device)) return;  // not selected
    note(events, at, {rule.code, rule.severity, rule.message, evidence_of(prefix, r), rule.action});
    return;  // the first matching rule names the event
  }
}

std::optional<double> uptime_seconds(const HostRoot& host) {
  auto text = host.read_value(kUptime);
  if (!text) return std::nullopt;
  return parse_double(first_line(*text).substr(0, text->find(' ')));
}

}  // namespace

SourceReading check_kernel_log(const CheckContext& ctx, const RulesSource& rules,
                               std::optional<double> since_seconds,
                               std::vector<DeviceHealth>& devices, const Inventory& inv,
                               std::vector<Finding>& host) {
  auto read = read_kernel_log(ctx.host, kKernelLogMaxBytes);
  if (!read.log) {
    if (read.error && read.error->sys_errno != ENOENT)
      ctx.warnings.push_back(cat({"cannot read the kernel log: ", read.error->message,
                                  " (with kernel.dmesg_restrict=1 reading it needs CAP_SYSLOG)"}));
    return read.reading;
  }
  const auto& log = *read.log;
  if (log.malformed)
    ctx.warnings.push_back(cat(
        {read.reading.detail, ": ", std::to_string(log.malformed), " malformed records skipped"}));
  if (read.untimed && since_seconds)
    ctx.warnings.push_back(cat({read.reading.detail, ": ", std::to_string(read.untimed),
                                " records carry no time (printk.time is off); --since drops "
                                "them"}));
  std::optional<uint64_t> cutoff_us;
  if (since_seconds) {
    if (auto up = uptime_seconds(ctx.host)) {
      double from = *up - *since_seconds;
      cutoff_us = from <= 0 ? 0 : static_cast<uint64_t>(from * 1e6);
    } else {
      ctx.warnings.push_back("--since: /proc/uptime is unreadable; every record is used");
    }
  }
  EventMap events;
  for (const auto& r : log.records) {
    if (cutoff_us && r.timestamp_us < *cutoff_us) continue;
    classify(r, read.evidence_prefix, rules(), inv, devices, events);
  }
  for (auto& [key, e] : events) {
    if (e.count > 1) e.finding.message += cat({" (", std::to_string(e.count), " times)"});
    int at = std::get<0>(key);
    if (at >= 0)
      devices[at].findings.push_back(std::move(e.finding));
    else
      host.push_back(std::move(e.finding));
  }
  return read.reading;
}

}  // namespace anygpu::health
