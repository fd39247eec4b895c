#include "app/occupancy.h"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "health/health_client.h"
#include "metrics/backend.h"
#include "metrics/collector.h"
#include "select/units.h"
#include "util/strings.h"

namespace anygpu {

namespace {

const DeviceSample* sample_of(const MetricsSnapshot& s, const std::string& bus) {
  for (const auto& d : s.devices)
    if (d.pci_bus_id == bus) return &d;
  return nullptr;
}

const BackendStatus* backend_of(const MetricsSnapshot& s, const std::string& vendor) {
  for (const auto& b : s.backends)
    if (b.vendor == vendor) return &b;
  return nullptr;
}

// Why the sample has no `what` for the device: its backend is down, reading it failed (the
// warnings name the file or call), or the source does not give it.
std::string missing(const MetricsSnapshot& s, const Device& d, std::string_view what) {
  const auto* sample = sample_of(s, d.pci.address.str());
  const auto* backend = backend_of(s, d.vendor);
  if (backend && !backend->up)
    return cat({"the ", d.vendor, " metrics source (", backend->source, ") is down",
                backend->error ? cat({": ", *backend->error}) : std::string()});
  if (!sample || !backend) return cat({"no metrics sample of this device"});
  auto text = cat({backend->source, " gave no ", what, " for this device"});
  if (!sample->warnings.empty())
    text += cat({" (sampling warned: ", join(sample->warnings, "; "), ")"});
  return text;
}

// The device's sample where its backend is up; a down backend's values (if any) are old.
const DeviceSample* fresh_sample_of(const MetricsSnapshot& s, const Device& d) {
  const auto* backend = backend_of(s, d.vendor);
  return backend && backend->up ? sample_of(s, d.pci.address.str()) : nullptr;
}

void read_memory(const MetricsSnapshot& s, const Device& d, UnitOccupancy& o) {
  const auto* sample = fresh_sample_of(s, d);
  std::optional<double> total = sample ? sample->memory_total_bytes : std::nullopt;
  if (!total && d.memory_total_bytes) total = static_cast<double>(*d.memory_total_bytes);
  if (!sample || !sample->memory_used_bytes) {
    o.free_memory_unknown = missing(s, d, "used memory");
  } else if (!total) {
    o.free_memory_unknown = missing(s, d, "memory size");
  } else {
    o.free_memory_bytes = static_cast<uint64_t>(std::max(0.0, *total - *sample->memory_used_bytes));
  }
}

void read_utilization(const MetricsSnapshot& s, const Device& d, UnitOccupancy& o) {
  const auto* sample = fresh_sample_of(s, d);
  if (sample && sample->utilization_ratio)
    o.utilization_ratio = std::clamp(*sample->utilization_ratio, 0.0, 1.0);
  else
    o.utilization_unknown = missing(s, d, "utilization");
}

bool has_nodes(const Device& d) {
  if (!d.device_nodes.empty() || d.render_node || d.card_node) return true;
  return std::any_of(d.partitions.begin(), d.partitions.end(),
                     [](const Partition& p) { return !p.device_nodes.empty(); });
}

// Why /proc cannot tell the device's holders; nullopt when it can.
std::optional<std::string> proc_blind(const ps::ProcessScan& scan, const Device& d,
                                      const std::optional<std::string>& every_process) {
  if (scan.unreadable) return cat({"/proc could not be listed: ", *scan.unreadable});
  if (every_process) return *every_process;
  if (scan.hidden > 0)
    return cat({std::to_string(scan.hidden), " process", scan.hidden == 1 ? "'s" : "es'",
                " open files could not be read (other users'; root can read them)"});
  if (!has_nodes(d)) return std::string("no device node of it is known to look for in /proc");
  return std::nullopt;
}

// Whether process `p` may be on `u`: it holds the device (a whole-device unit); it holds the
// partition's own nodes, or the device's without holding any partition of it (a partition).
bool holds(const ps::ProcessInfo& p, const Unit& u, const std::string& bus,
           const std::string& key) {
  if (!std::binary_search(p.devices.begin(), p.devices.end(), bus)) return false;
  if (!u.partition) return true;
  if (std::binary_search(p.partitions.begin(), p.partitions.end(), key)) return true;
  return std::none_of(p.partitions.begin(), p.partitions.end(),
                      [&](const std::string& k) { return k.starts_with(bus + "/"); });
}

}  // namespace

Occupancy occupancy_of(const Inventory& inventory, const MetricsSnapshot& sample,
                       const ps::ProcessScan& scan, const std::vector<std::string>& library_listed,
                       const std::optional<std::string>& every_process, int self) {
  Occupancy out;
  for (const auto& u : selection_units(inventory)) {
    const Device& d = *u.device;
    auto bus = d.pci.address.str();
    auto key = unit_key(u);
    UnitOccupancy o;
    if (u.partition) {
      o.free_memory_unknown = o.utilization_unknown = "sampled per device, not per partition";
    } else {
      read_memory(sample, d, o);
      read_utilization(sample, d, o);
    }
    bool listed =
        std::find(library_listed.begin(), library_listed.end(), bus) != library_listed.end();
    auto blind = proc_blind(scan, d, every_process);
    if (!listed && blind) {
      o.holders_unknown = *blind;
    } else {
      int n = 0;
      for (const auto& p : scan.processes)
        if (p.pid != self && !ps::holder_ended(p) && holds(p, u, bus, key)) ++n;
      o.holders = n;
    }
    out.emplace(key, std::move(o));
  }
  return out;
}

Occupancy read_occupancy(const HostRoot& host, const Inventory& inventory, uint32_t euid,
                         Diagnostics& diagnostics, const Registry& registry) {
  // The scan before any library worker starts: a worker holds device nodes while it lives.
  auto scan = ps::scan_processes(host, inventory);
  auto library = worker::read_library_health(host, inventory, registry);
  for (const auto& w : library.warnings) diagnostics.warn(w);
  std::vector<std::string> listed;
  for (const auto& [bus, facts] : library.devices)
    if (facts.processes) listed.push_back(bus);
  ps::add_library_processes(host, library, scan);
  CollectorOptions options;
  options.call_timeout = host.options().library_timeout;
  auto sample = sample_once(make_backends(host, inventory, registry), options);
  auto every = ps::why_not_every_process(host, euid);
  return occupancy_of(inventory, sample, scan, listed, every,
                      host.is_real_root() ? static_cast<int>(::getpid()) : 0);
}

}  // namespace anygpu
