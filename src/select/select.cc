#include "select/select.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "model/arch.h"
#include "probe/probe.h"
#include "probe/runtimes.h"
#include "registry/cpu_fallback.h"
#include "select/units.h"
#include "util/cpulist.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// "sm_90a" -> 90; nullopt for other architectures.
std::optional<int> sm_value(std::string_view arch) {
  auto a = Arch::parse(arch);
  if (!a || !a->is_nvidia()) return std::nullopt;
  return a->sm();
}

bool arch_equals(std::string_view arch, std::string_view want) {
  if (want.ends_with('*')) return arch.starts_with(want.substr(0, want.size() - 1));
  if (want.starts_with("sm_")) {
    auto a = sm_value(arch), w = sm_value(want);
    return a && w && *a == *w && arch.size() >= want.size() && arch.starts_with(want);
  }
  return arch == want;
}

std::string label(const Device& d) {
  return cat({d.vendor, " ", std::to_string(d.index), " (", d.pci.address.str(), ")"});
}

std::string numa_text(std::optional<int> n) {
  return n ? cat({"NUMA node ", std::to_string(*n)}) : std::string("unknown NUMA node");
}

std::vector<int> cpus_of(const std::vector<Device>& devices) {
  std::set<int> out;
  for (const auto& d : devices) {
    if (!d.cpu_affinity) continue;
    auto cpus = parse_cpulist(*d.cpu_affinity);
    if (cpus) out.insert(cpus->begin(), cpus->end());
  }
  return {out.begin(), out.end()};
}

std::vector<int> host_cpus(const Inventory& inv) {
  std::vector<int> out;
  for (int i = 0; i < inv.host.cpus.value_or(1); ++i) out.push_back(i);
  return out;
}

// CPUs the chosen devices are local to, intersected with this process's affinity, per process.
int workers(const std::vector<int>& local, const std::vector<int>& affinity, int nproc,
            std::string_view what, std::vector<std::string>& reasons) {
  std::vector<int> usable_cpus;
  if (affinity.empty()) {
    usable_cpus = local;
  } else {
    std::set_intersection(local.begin(), local.end(), affinity.begin(), affinity.end(),
                          std::back_inserter(usable_cpus));
  }
  int n = std::max(1, static_cast<int>(usable_cpus.size()) / std::max(1, nproc));
  reasons.push_back(
      cat({"ANYGPU_NUM_WORKERS=", std::to_string(n), ": ", std::to_string(usable_cpus.size()), " ",
           what, affinity.empty() ? "" : " and allowed to this process", " (",
           format_cpulist(usable_cpus), ") / ", std::to_string(nproc),
           nproc == 1 ? " process" : " processes", " per node"}));
  if (usable_cpus.empty())
    reasons.push_back("warning: this process may not run on any CPU local to the chosen devices");
  return n;
}

// Reasons say "devices" on a host without partitions (as always) and "units" where a vendor's
// partitions are counted.
std::string noun(bool partitioned, size_t n) {
  if (partitioned) return n == 1 ? "unit" : "units";
  return n == 1 ? "device" : "devices";
}

std::optional<int> unit_numa(const Unit& u) {
  return u.partition && u.partition->numa_node ? u.partition->numa_node : u.device->numa_node;
}

bool unit_less(const Unit& a, const Unit& b) {
  auto pa = a.partition ? a.partition->index : -1, pb = b.partition ? b.partition->index : -1;
  return std::pair(a.device->index, pa) < std::pair(b.device->index, pb);
}

bool vendor_partitioned(const Inventory& inv, std::string_view vendor) {
  return std::any_of(inv.devices.begin(), inv.devices.end(), [&](const Device& d) {
    return d.vendor == vendor && d.partitioning && !d.partitions.empty();
  });
}

bool vendor_tiled(const Inventory& inv, std::string_view vendor) {
  return std::any_of(inv.devices.begin(), inv.devices.end(), [&](const Device& d) {
    return d.vendor == vendor && d.partitioning && d.partitioning->mode == "tiles" &&
           !d.partitions.empty();
  });
}

// What every rule's evaluation shares.
struct Context {
  const Inventory& inv;
  const AcceleratorConfig& cfg;
  const SelectInputs& in;
  std::vector<Unit> units;
  std::map<std::string, std::string> entries;   // unit key -> its visible-devices entry
  std::map<std::string, std::string> no_entry;  // unit key -> why it has none
  // vendor -> the unit keys its caller's visible-devices variable leaves visible (when set)
  std::map<std::string_view, std::set<std::string>> visible;
};

struct Candidate {
  const Vendor* vendor = nullptr;
  bool partitioned = false;  // the vendor has partitioned devices here
  std::vector<Unit> eligible;
  std::vector<Unit> listed;  // resolved `devices:` list, when one was given
  std::string left_out;      // why the others are not eligible (partitioned vendors, for -v)
};

// n of `eligible` on one device, the first (index order) that has them: partitions of one
// device share its package, the closest units there are.
std::optional<std::vector<Unit>> pick_one_device(const std::vector<Unit>& eligible, size_t n,
                                                 const std::string& of,
                                                 std::vector<std::string>& reasons) {
  for (const auto& first : eligible) {
    std::vector<Unit> same;
    for (const auto& u : eligible)
      if (u.device == first.device && same.size() < n) same.push_back(u);
    if (same.size() < n) continue;
    reasons.push_back(cat({"chose ", of, " on ", label(*first.device),
                           ": partitions of one device (packed, leaving other devices free)"}));
    return same;
  }
  return std::nullopt;
}

std::string unit_bus(const Unit& u) {
  return u.device->pci.address.str();
}

// The direct link between two units: their partitions' own where the topology links partitions
// (KFD lists each AMD partition as a node), else their devices'.
const DirectLink* unit_link(const Closeness& cl, const Unit& a, const Unit& b) {
  if (a.partition && b.partition)
    if (const auto* l = cl.link(a.partition->id, b.partition->id)) return l;
  return cl.link(unit_bus(a), unit_bus(b));
}

// Units of one device are closer than any link; units of two devices are as their devices, or
// as their own partitions' link.
bool units_linked(const Closeness& cl, const Unit& a, const Unit& b) {
  return a.device == b.device || unit_link(cl, a, b);
}

// The kind of the links inside `group` ("xgmi"); empty when it spans one device.
std::string link_kind(const Closeness& cl, const std::vector<Unit>& group) {
  for (const auto& a : group)
    for (const auto& b : group)
      if (a.device != b.device) return unit_link(cl, a, b)->kind;
  return {};
}

// `eligible` with the devices that have the most of them first (ties keep index order): grown
// from there, a group of partitions spans the fewest devices, the pairs inside one device being
// nearer than any pair across two (KFD weighs them 13 and 41, facts F-54).
std::vector<Unit> fullest_devices_first(const std::vector<Unit>& eligible) {
  std::map<const Device*, size_t> per_device;
  for (const auto& u : eligible) ++per_device[u.device];
  std::vector<Unit> out = eligible;
  std::stable_sort(out.begin(), out.end(), [&](const Unit& a, const Unit& b) {
    return per_device[a.device] > per_device[b.device];
  });
  return out;
}

// "on 2 devices (amd 0: 8, amd 1: 4)" and the KFD weights inside and between them, for a group
// of partitions of more than one device linked partition to partition; else "".
std::string partition_spread(const Closeness& cl, const std::vector<Unit>& group) {
  std::vector<std::pair<const Device*, size_t>> per_device;
  std::optional<uint64_t> inside, between;
  for (const auto& u : group) {
    if (!u.partition) return {};
    if (per_device.empty() || per_device.back().first != u.device)
      per_device.push_back({u.device, 0});
    ++per_device.back().second;
    for (const auto& v : group) {
      if (!v.partition || &u == &v) continue;
      const auto* l = cl.link(u.partition->id, v.partition->id);
      if (!l) return {};
      (u.device == v.device ? inside : between) = l->weight;
    }
  }
  if (per_device.size() < 2) return {};
  std::vector<std::string> each;
  for (const auto& [d, k] : per_device)
    each.push_back(cat({d->vendor, " ", std::to_string(d->index), ": ", std::to_string(k)}));
  std::string out = cat({"they span ", std::to_string(per_device.size()), " devices (",
                         join(each, ", "), "), the fewest that hold them"});
  if (inside && between)
    out += cat({": KFD weighs the link between partitions of one device ", std::to_string(*inside),
                ", of two devices ", std::to_string(*between)});
  return out;
}

// The units every two of which are directly linked, grown from `first` by the others in index
// order.
std::vector<Unit> linked_group(const Closeness& cl, const std::vector<Unit>& eligible, size_t first,
                               size_t n) {
  std::vector<Unit> group{eligible[first]};
  for (size_t j = 0; j < eligible.size() && group.size() < n; ++j) {
    if (j == first) continue;
    if (std::all_of(group.begin(), group.end(),
                    [&](const Unit& m) { return units_linked(cl, m, eligible[j]); }))
      group.push_back(eligible[j]);
  }
  std::sort(group.begin(), group.end(), unit_less);
  return group;
}

// n of `eligible` in one link domain (every two directly linked), the first in index order; when
// none has n and the units have links at all, a reason says how many the largest has.
std::optional<std::vector<Unit>> pick_link_domain(const Closeness& cl, const std::vector<Unit>& all,
                                                  size_t n, const std::string& of,
                                                  std::vector<std::string>& reasons) {
  if (cl.links.empty()) return std::nullopt;
  bool partitions = std::any_of(all.begin(), all.end(), [](const Unit& u) { return u.partition; });
  auto eligible = partitions ? fullest_devices_first(all) : all;
  size_t largest = 0;
  std::string kind;
  for (size_t i = 0; i < eligible.size(); ++i) {
    auto group = linked_group(cl, eligible, i, n);
    auto k = link_kind(cl, group);
    if (k.empty()) continue;  // no link from this unit's device
    if (group.size() == n) {
      reasons.push_back(cat({"chose ", of, " in one ", k, " link domain: every two of them are ",
                             "directly linked"}));
      if (auto spread = partition_spread(cl, group); !spread.empty()) reasons.push_back(spread);
      return group;
    }
    if (group.size() > largest) largest = group.size(), kind = k;
  }
  if (largest > 0)
    reasons.push_back(cat({"no ", kind, " link domain has ", std::to_string(n),
                           " of them (the largest has ", std::to_string(largest), ")"}));
  return std::nullopt;
}

// n of `eligible` behind one PCIe switch (PIX or PXB apart), the first in index order.
std::optional<std::vector<Unit>> pick_one_switch(const Closeness& cl,
                                                 const std::vector<Unit>& eligible, size_t n,
                                                 const std::string& of,
                                                 std::vector<std::string>& reasons) {
  for (const auto& first : eligible) {
    auto sw = cl.pcie_switch.find(unit_bus(first));
    if (sw == cl.pcie_switch.end()) continue;
    std::vector<Unit> same;
    for (const auto& u : eligible) {
      auto it = cl.pcie_switch.find(unit_bus(u));
      if (it != cl.pcie_switch.end() && it->second == sw->second && same.size() < n)
        same.push_back(u);
    }
    if (same.size() < n) continue;
    reasons.push_back(cat({"chose ", of, " behind one PCIe switch (below ", sw->second,
                           "): PIX or PXB apart, without the host bridge"}));
    return same;
  }
  return std::nullopt;
}

// Picks `n` of `eligible` (index order), preferring one device (partitions), then one link
// domain, then one PCIe switch, then one NUMA node behind one root complex, then one NUMA node.
std::vector<Unit> pick_grouped(const std::vector<Unit>& eligible, size_t n, bool partitioned,
                               const Closeness& cl, std::vector<std::string>& reasons) {
  const std::string& vendor = eligible.front().device->vendor;
  auto of = cat({std::to_string(n), " of ", std::to_string(eligible.size()), " eligible ", vendor,
                 " ", noun(partitioned, 2)});
  if (partitioned)
    if (auto one = pick_one_device(eligible, n, of, reasons)) return *one;
  if (auto linked = pick_link_domain(cl, eligible, n, of, reasons)) return *linked;
  if (auto behind = pick_one_switch(cl, eligible, n, of, reasons)) return *behind;
  std::map<int, std::vector<Unit>> by_numa;  // -1: unknown
  for (const auto& u : eligible) by_numa[unit_numa(u).value_or(-1)].push_back(u);
  // Best: n on one NUMA node behind one root complex; then n on one NUMA node.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [node, units] : by_numa) {
      if (units.size() < n) continue;
      auto numa = numa_text(node < 0 ? std::nullopt : std::optional<int>(node));
      if (pass == 0) {
        std::map<std::string, std::vector<Unit>> by_rc;
        for (const auto& u : units) by_rc[u.device->pci.root_complex].push_back(u);
        for (const auto& [rc, group] : by_rc) {
          if (rc.empty() || group.size() < n) continue;
          reasons.push_back(cat({"chose ", of, " on ", numa, " behind PCI root complex ", rc,
                                 ": they share a NUMA node and a root complex"}));
          return {group.begin(), group.begin() + static_cast<long>(n)};
        }
      } else {
        reasons.push_back(
            cat({"chose ", of, " on ", numa, ": they share a NUMA node (no PCI root complex has ",
                 std::to_string(n), " of them)"}));
        return {units.begin(), units.begin() + static_cast<long>(n)};
      }
    }
  }
  // Spread over the fewest NUMA nodes: largest groups first.
  std::vector<std::pair<int, std::vector<Unit>>> groups(by_numa.begin(), by_numa.end());
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<Unit> out;
  std::vector<std::string> nodes;
  for (const auto& [node, units] : groups) {
    if (out.size() == n) break;
    nodes.push_back(node < 0 ? "unknown" : std::to_string(node));
    for (const auto& u : units) {
      if (out.size() == n) break;
      out.push_back(u);
    }
  }
  std::sort(out.begin(), out.end(), unit_less);
  reasons.push_back(cat({"chose ", of, " across NUMA nodes ", join(nodes, ","),
                         ": no single NUMA node has ", std::to_string(n), " of them"}));
  return out;
}

Selection cpu_selection(const Inventory& inv, const SelectInputs& in,
                        std::vector<std::string> reasons) {
  Selection s;
  s.vendor = "cpu";
  s.backend = "cpu";
  s.torch_device = kCpuTorchDevice;
  s.dist_backend = kCpuDistBackend;
  s.reasons = std::move(reasons);
  int nproc = in.processes_per_node.value_or(1);
  auto local = in.affinity.empty() ? host_cpus(inv) : in.affinity;
  s.num_workers =
      workers(local, {}, nproc,
              in.affinity.empty() ? "CPUs on the host" : "CPUs allowed to this process", s.reasons);
  s.env = {{"ANYGPU_VENDOR", "cpu"},
           {"ANYGPU_BACKEND", "cpu"},
           {"ANYGPU_TORCH_DEVICE", std::string(kCpuTorchDevice)},
           {"ANYGPU_DIST_BACKEND", std::string(kCpuDistBackend)},
           {"ANYGPU_DEVICES", ""},
           {"ANYGPU_NUM_WORKERS", std::to_string(s.num_workers)}};
  return s;
}

// The units of `v` one entry of a caller's visible-devices variable names: an index (PCI bus
// order, which anygpu makes the runtime's order; on a partitioned AMD host HIP's logical id),
// a unique UUID prefix (as CUDA accepts), or a partition's id or UUID.
std::vector<Unit> caller_entry_units(const Context& c, const Vendor& v, std::string_view e) {
  std::vector<Unit> hits;
  // "0.1" (ZE_AFFINITY_MASK: device 0, sub-device 1) keeps device 0 visible.
  auto dot = e.find('.');
  auto n = parse_int(dot == std::string_view::npos ? e : e.substr(0, dot));
  for (const auto& u : c.units) {
    const Device& d = *u.device;
    if (d.vendor != v.id) continue;
    auto entry = c.entries.find(unit_key(u));
    bool logical = u.partition && d.vendor == "amd";
    bool by_index = n && (logical ? entry != c.entries.end() && entry->second == std::to_string(*n)
                                  : d.index == *n);
    bool by_uuid = !n && d.uuid && d.uuid->starts_with(e);
    bool by_partition = !n && u.partition && (u.partition->id == e || u.partition->uuid == e);
    if (by_index || by_uuid || by_partition) hits.push_back(u);
  }
  return hits;
}

// The keys of the units of `v` a caller's visible-devices variable leaves visible; nullopt when
// the caller set none. An entry naming no device (or several) is an error.
Result<std::optional<std::set<std::string>>> caller_visible(const Context& c, const Vendor& v) {
  using Visible = std::optional<std::set<std::string>>;
  if (c.in.allocation_governs || v.visible_devices_env.empty()) return Visible();
  auto it = c.in.caller_env.find(std::string(v.visible_devices_env));
  if (it == c.in.caller_env.end()) return Visible();
  // Vendors share variables (CUDA_VISIBLE_DEVICES: NVIDIA, Iluvatar, T-Head): it restricts
  // only the vendors this host has.
  if (c.inv.of_vendor(v.id).empty()) return Visible();
  std::set<std::string> out;
  std::vector<std::string> unknown;
  for (auto entry : split(it->second, ',')) {
    auto e = trim(entry);
    if (e.empty()) continue;
    auto hits = caller_entry_units(c, v, e);
    std::set<const Device*> devices;
    for (const auto& u : hits) devices.insert(u.device);
    if (devices.size() != 1) {
      unknown.push_back(std::string(e));
      continue;
    }
    for (const auto& u : hits) out.insert(unit_key(u));
  }
  if (!unknown.empty())
    return host_error(cat({it->first, "=", it->second, ": names no single ", v.id, " device (",
                           join(unknown, ", "),
                           "); entries are indices in PCI bus order or unique UUID prefixes"}));
  return Visible(std::move(out));
}

std::string rule_name(const PolicyRule* rule) {
  return rule ? cat({"policy priority ", std::to_string(rule->priority)})
              : std::string("default policy (any usable device)");
}

// Who holds the unit (SelectInputs::unavailable): itself, or its whole device, or (for a whole
// device) any of its partitions.
const std::string* held_by(const SelectInputs& in, const Unit& u) {
  auto bus = u.device->pci.address.str();
  if (auto it = in.unavailable.find(bus); it != in.unavailable.end()) return &it->second;
  if (u.partition) {
    auto it = in.unavailable.find(unit_key(u));
    return it == in.unavailable.end() ? nullptr : &it->second;
  }
  auto it = in.unavailable.lower_bound(bus + "/");
  return it != in.unavailable.end() && it->first.starts_with(bus + "/") ? &it->second : nullptr;
}

// Why `u` cannot be chosen under `rule`; nullopt when it can. `by_criteria` says whether one of
// the rule's criteria turned it down (rather than its state, the caller or a lock).
std::optional<std::string> why_ineligible(const Context& c, const Vendor& v, const Unit& u,
                                          const PolicyRule* rule, bool& by_criteria) {
  by_criteria = false;
  const Device& d = *u.device;
  if (!d.selectable()) return std::string(to_string(d.status));
  if (d.lends_to_vfs())
    return cat({"a physical function with ", std::to_string(d.sriov->num_vfs),
                " SR-IOV virtual functions enabled: its memory and engines are theirs; select a "
                "virtual function"});
  if (auto h = c.visible.find(v.id); h != c.visible.end() && !h->second.count(unit_key(u)))
    return cat({"hidden by the caller's ", v.visible_devices_env});
  if (const auto* held = held_by(c.in, u)) return *held;
  if (auto it = c.no_entry.find(unit_key(u)); it != c.no_entry.end()) return it->second;
  if (!rule) return std::nullopt;
  auto facts = unit_facts(u);
  const UnitOccupancy* occupancy = nullptr;
  if (auto it = c.in.occupancy.find(unit_key(u)); it != c.in.occupancy.end())
    occupancy = &it->second;
  for (const auto& crit : rule->criteria) {
    std::string why;
    bool meets = is_occupancy_criterion(crit.type) ? occupancy_meets(occupancy, crit, &why)
                                                   : device_meets(facts, crit, &why);
    if (!meets) {
      by_criteria = true;
      return why;
    }
  }
  return std::nullopt;
}

struct Miss {
  std::string label, why;
};

// "policy priority 1 rejected amd 3 (0000:c6:00.0): utilization 88% is more than 50%"
std::string rejection_line(const Rejection& r) {
  auto rule = r.priority ? cat({"policy priority ", std::to_string(*r.priority)})
                         : std::string("default policy");
  return cat({rule, " rejected ", r.label, ": ", r.reason});
}

// One line per distinct explanation keeps 8 identical GPUs readable.
std::string distinct_whys(const std::vector<Miss>& why_not) {
  std::vector<std::string> uniq;
  for (const auto& w : why_not)
    if (std::find(uniq.begin(), uniq.end(), w.why) == uniq.end()) uniq.push_back(w.why);
  return join(uniq, "; ");
}

// Resolves the `devices:` list against the eligible units; false (with a miss) when one is not.
bool resolve_list(const Context& c, Candidate& cand, const std::vector<Miss>& why_not,
                  const std::function<void(std::string)>& miss) {
  for (const auto& ref : c.cfg.list) {
    auto hit = std::find_if(cand.eligible.begin(), cand.eligible.end(),
                            [&](const Unit& u) { return unit_named_by(u, ref); });
    if (hit != cand.eligible.end()) {
      cand.listed.push_back(*hit);
      continue;
    }
    std::string why;
    for (const auto& u : c.units)
      if (u.device->vendor == cand.vendor->id && unit_named_by(u, ref))
        for (const auto& w : why_not)
          if (w.label == unit_label(u)) why = cat({" (", w.why, ")"});
    miss(cat({"listed device ", ref.text(), " is not an eligible ", cand.vendor->id, " ",
              cand.partitioned && (ref.partition || ref.uuid) ? "partition" : "device", why}));
    return false;
  }
  return true;
}

// The vendor's candidate under `rule`, or nullopt with a miss saying why.
// Units the rule's criteria turn down are added to `rejected`, each with its reason.
std::optional<Candidate> candidate_for(const Context& c, const Vendor& v, const PolicyRule* rule,
                                       std::vector<std::string>& misses,
                                       std::vector<Rejection>& rejected) {
  Candidate cand{&v, vendor_partitioned(c.inv, v.id), {}, {}, {}};
  size_t units_of_vendor = 0;
  std::vector<Miss> why_not;
  for (const auto& u : c.units) {
    if (u.device->vendor != v.id) continue;
    ++units_of_vendor;
    bool by_criteria = false;
    if (auto why = why_ineligible(c, v, u, rule, by_criteria)) {
      why_not.push_back({unit_label(u), *why});
      if (by_criteria)
        rejected.push_back({unit_id(u), unit_label(u), std::string(v.id),
                            rule ? std::optional<long>(rule->priority) : std::nullopt, *why});
    } else {
      cand.eligible.push_back(u);
    }
  }
  if (units_of_vendor == 0) return std::nullopt;
  auto miss = [&](std::string text) {
    misses.push_back(cat({rule_name(rule), ", ", v.id, ": ", text}));
  };
  if (cand.eligible.empty()) {
    miss(cat({"no ", cand.partitioned ? "unit" : "device", " qualifies (", distinct_whys(why_not),
              ")"}));
    return std::nullopt;
  }
  if (!c.cfg.list.empty() && !resolve_list(c, cand, why_not, miss)) return std::nullopt;
  if (cand.partitioned && !why_not.empty())
    cand.left_out = cat({"left out ", std::to_string(why_not.size()), " ", v.id, " ",
                         noun(true, why_not.size()), " (", why_not.front().label,
                         why_not.size() > 1 ? " …" : "", "): ", distinct_whys(why_not)});
  size_t need = c.cfg.list.empty() ? static_cast<size_t>(c.cfg.count.value_or(1)) : 1;
  if (rule)
    for (const auto& crit : rule->criteria)
      if (crit.type == CriterionType::device_count)
        need = std::max(need, static_cast<size_t>(*crit.min_number));
  if (cand.eligible.size() < need) {
    miss(cat({"needs ", std::to_string(need), " ", noun(cand.partitioned, 2), ", ",
              std::to_string(cand.eligible.size()), " qualify"}));
    return std::nullopt;
  }
  return cand;
}

// For a partition that is absent from a device that is there: " (amd 7 has partitions 0-6)".
template <typename Considered>
std::string partitions_text(const Context& c, const DeviceRef& ref, const Considered& considered) {
  if (!ref.partition) return "";
  for (const auto& d : c.inv.devices) {
    if (!considered(d) || !((ref.bus_id && d.pci.address.str() == *ref.bus_id) ||
                            (ref.index && d.index == *ref.index)))
      continue;
    std::vector<std::string> have;
    for (const auto& p : d.partitions) have.push_back(std::to_string(p.index));
    return cat({" (", label(d), " has ",
                have.empty() ? std::string("no partitions") : cat({"partitions ", join(have, ",")}),
                ")"});
  }
  return "";
}

// An explicit list is a demand, not a preference: naming a device this host lacks, or a
// partitioned device as a whole, is an error (exit 3), never a quiet fall back to the CPU.
std::optional<Error> check_list(const Context& c, const std::vector<const Vendor*>& vendors) {
  auto considered = [&](const Device& d) {
    return std::any_of(vendors.begin(), vendors.end(),
                       [&](const Vendor* v) { return v->id == d.vendor; });
  };
  std::vector<std::string> absent;
  for (const auto& ref : c.cfg.list) {
    for (const auto& d : c.inv.devices)
      if (considered(d) && names_partitioned_device(d, ref))
        return host_error(
            cat({c.cfg.list_origin, ": ", ref.text(), " is ", label(d), ", which is partitioned (",
                 d.partitioning->mode, ", ", std::to_string(d.partitions.size()),
                 " partitions): its partitions are the units; name them, e.g. ",
                 std::to_string(d.index), ":", std::to_string(d.partitions[0].index), " or ",
                 d.partitions[0].id}));
    bool found = std::any_of(c.units.begin(), c.units.end(), [&](const Unit& u) {
      return considered(*u.device) && unit_named_by(u, ref);
    });
    if (!found) absent.push_back(cat({ref.text(), partitions_text(c, ref, considered)}));
  }
  if (absent.empty()) return std::nullopt;
  return host_error(
      cat({c.cfg.list_origin, ": no ",
           c.cfg.backend == "auto" ? std::string() : cat({c.cfg.backend, " "}), "device ",
           join(absent, ", "), " on this host (", std::to_string(c.inv.devices.size()), " device",
           c.inv.devices.size() == 1 ? "" : "s", " found)"}));
}

// Each unit's visible-devices entry, or why it has none (then it is not eligible).
void name_units(Context& c, const Registry& registry) {
  bool amd_partitioned = vendor_partitioned(c.inv, "amd");
  auto flat = level_zero_flat_entries(c.units);
  for (const auto& u : c.units) {
    if (auto it = flat.find(unit_key(u)); it != flat.end()) {
      c.entries[unit_key(u)] = it->second;
      continue;
    }
    const auto* v = registry.vendor(u.device->vendor);
    auto entry =
        visible_entry(u, amd_partitioned, v ? v->partition_uuid_since : std::string_view());
    if (entry)
      c.entries[unit_key(u)] = *entry;
    else
      c.no_entry[unit_key(u)] = entry.error().message;
  }
}

// The caller's visible-devices variables narrow each vendor's units.
Result<bool> apply_caller_visible(Context& c, const std::vector<const Vendor*>& vendors,
                                  std::vector<std::string>& reasons) {
  for (const auto* v : vendors) {
    auto visible = caller_visible(c, *v);
    if (!visible) return visible.error();
    if (!*visible) continue;
    c.visible[v->id] = **visible;
    size_t devices = 0;
    for (const auto& u : c.units)
      if (u.device->vendor == v->id && (*visible)->count(unit_key(u))) ++devices;
    bool partitioned = vendor_partitioned(c.inv, v->id);
    reasons.push_back(
        cat({v->visible_devices_env, "=", c.in.caller_env.at(std::string(v->visible_devices_env)),
             " from the caller: ", std::to_string(devices), " ", v->id, " ",
             noun(partitioned, devices), " visible"}));
  }
  return true;
}

// The winning candidate's units, by the config's devices: list, count or all.
std::vector<Unit> choose_units(const AcceleratorConfig& cfg, const Candidate& w,
                               std::string_view vendor, const Closeness& cl,
                               std::vector<std::string>& reasons) {
  std::vector<Unit> chosen;
  if (!cfg.list.empty()) {
    chosen = w.listed;
    std::sort(chosen.begin(), chosen.end(), unit_less);
    reasons.push_back(cat({"chose the ", std::to_string(chosen.size()), " listed ",
                           noun(w.partitioned, chosen.size())}));
  } else if (cfg.count && static_cast<size_t>(*cfg.count) < w.eligible.size()) {
    chosen = pick_grouped(w.eligible, static_cast<size_t>(*cfg.count), w.partitioned, cl, reasons);
  } else {
    chosen = w.eligible;
    reasons.push_back(cat({"chose all ", std::to_string(chosen.size()), " eligible ", vendor, " ",
                           noun(w.partitioned, chosen.size())}));
  }
  return chosen;
}

// What a selection of partitions should tell its user.
void partition_warnings(const std::vector<Unit>& chosen, std::string_view visible, Selection& s) {
  size_t mig = 0, whole = 0, amd = 0;
  for (const auto& u : chosen) {
    if (!u.partition)
      ++whole;
    else if (u.device->partitioning->mode == "mig")
      ++mig;
    else if (u.device->vendor == "amd")
      ++amd;
  }
  if (mig > 0 && chosen.size() > 1)
    s.warnings.push_back(
        cat({std::to_string(mig), " MIG instance", mig == 1 ? "" : "s", " among ",
             std::to_string(chosen.size()),
             " units: MIG instances have no NVLink/NVSwitch peer access "
             "and no CUDA IPC with any other device, so collectives between these units go through "
             "host memory"}));
  if (whole > 0 && whole < chosen.size())
    s.warnings.push_back(
        "whole devices and partitions chosen together: the units differ in "
        "size, so equal work per unit finishes at different times");
  if (amd > 0)
    s.reasons.push_back(cat({visible,
                             " holds HIP's logical ids: each partition is a "
                             "GPU of its own, numbered in KFD node order (not PCI order)"}));
}

// The visible-devices entries of `chosen`. CUDA takes MIG instances by UUID only; the whole GPUs
// beside them are then named by UUID too where known (one form for the whole list).
std::vector<std::string> visible_entries(const Context& c, const std::vector<Unit>& chosen) {
  bool any_mig = std::any_of(chosen.begin(), chosen.end(), [](const Unit& u) {
    return u.partition && u.device->partitioning->mode == "mig";
  });
  std::vector<std::string> out;
  for (const auto& u : chosen) {
    if (any_mig && !u.partition && u.device->uuid)
      out.push_back(*u.device->uuid);
    else
      out.push_back(c.entries.at(unit_key(u)));
  }
  return out;
}

std::string unit_line(const Unit& u) {
  const Device& d = *u.device;
  std::string what = d.name ? cat({" ", *d.name}) : "";
  if (u.partition && u.partition->profile) what += cat({" ", *u.partition->profile});
  return cat({"  ", unit_label(u), what, ", ", numa_text(unit_numa(u)),
              d.pci.root_complex.empty() ? "" : cat({", ", d.pci.root_complex})});
}

}  // namespace

bool device_meets(const Device& d, const Criterion& c, std::string* why) {
  auto no = [&](std::string text) {
    if (why) *why = std::move(text);
    return false;
  };
  switch (c.type) {
    case CriterionType::gpu_vendor:
      if (std::find(c.equals.begin(), c.equals.end(), d.vendor) != c.equals.end()) return true;
      return no(cat({"vendor ", d.vendor, " is not ", join(c.equals, " or ")}));
    case CriterionType::gpu_compute_capability: {
      if (!d.arch) return no("architecture unknown");
      if (c.min) {
        auto have = sm_value(*d.arch), want = sm_value(*c.min);
        if (have && want && *have >= *want) return true;
        return no(cat({"architecture ", *d.arch, " is not at least ", *c.min}));
      }
      for (const auto& e : c.equals)
        if (arch_equals(*d.arch, e)) return true;
      return no(cat({"architecture ", *d.arch, " is not ", join(c.equals, " or ")}));
    }
    case CriterionType::driver_version: {
      if (!d.driver || !d.driver->version) return no("driver version unknown");
      auto cmp = compare_versions(*d.driver->version, *c.min);
      if (cmp && *cmp >= 0) return true;
      return no(cat({"driver ", *d.driver->version, " is older than ", *c.min}));
    }
    case CriterionType::memory_gb: {
      if (!d.memory_total_bytes) return no("memory size unknown");
      double gib = static_cast<double>(*d.memory_total_bytes) / double(1ull << 30);
      if (gib + 1e-9 >= *c.min_number) return true;
      return no(
          cat({"memory ", gib_text(gib), " GiB is less than ", gib_text(*c.min_number), " GiB"}));
    }
    case CriterionType::device_count:
      return true;
    case CriterionType::free_memory_gb:
    case CriterionType::utilization:
    case CriterionType::holders:
      return occupancy_meets(nullptr, c, why);
  }
  return true;
}

namespace {

struct Winner {
  Candidate candidate;
  const PolicyRule* rule = nullptr;
};

// The first rule under which some vendor qualifies, and that vendor.
std::optional<Winner> find_winner(const Context& c, const std::vector<const PolicyRule*>& rules,
                                  const std::vector<const Vendor*>& vendors,
                                  std::vector<std::string>& misses,
                                  std::vector<Rejection>& rejected) {
  for (const auto* rule : rules) {
    std::vector<Candidate> found;
    for (const auto* v : vendors)
      if (auto cand = candidate_for(c, *v, rule, misses, rejected))
        found.push_back(std::move(*cand));
    if (found.empty()) continue;
    // One vendor per process: a discrete accelerator before integrated graphics (a laptop's
    // suspended dGPU wakes on use and is what its owner trains on), then the most qualifying
    // units, then registry order.
    auto discrete = [](const Candidate& cand) {
      return std::any_of(cand.eligible.begin(), cand.eligible.end(),
                         [](const Unit& u) { return !u.device->integrated; });
    };
    std::stable_sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
      if (discrete(a) != discrete(b)) return discrete(a);
      return a.eligible.size() > b.eligible.size();
    });
    for (size_t i = 1; i < found.size(); ++i)
      misses.push_back(
          cat({rule_name(rule), ", ", found[i].vendor->id,
               ": also qualifies, but a process uses one vendor (", found.front().vendor->id,
               " has a discrete device, more qualifying devices or comes first in the "
               "registry)"}));
    return Winner{std::move(found.front()), rule};
  }
  return std::nullopt;
}

Result<Selection> no_winner(const Context& c, const std::vector<std::string>& misses,
                            std::vector<std::string> reasons) {
  const auto& cfg = c.cfg;
  if (cfg.backend != "auto") {
    auto msg = cat({"backend '", cfg.backend_written, "': no ", cfg.backend, " device matches"});
    bool any = false;
    for (const auto& d : c.inv.devices) any = any || d.vendor == cfg.backend;
    if (!any)
      msg += cat({": this host has no ", cfg.backend, " device"});
    else if (!misses.empty())
      msg += cat({": ", join(misses, "; ")});
    return host_error(msg);
  }
  if (!cfg.list.empty())
    return host_error(
        cat({cfg.list_origin, ": the listed devices cannot be used: ", join(misses, "; ")}));
  reasons.push_back(c.inv.devices.empty()
                        ? "no accelerator on this host: falling back to the CPU"
                        : "no accelerator matches the policy: falling back to the CPU");
  return cpu_selection(c.inv, c.in, std::move(reasons));
}

// The selection of `chosen` units of the winning vendor, with its environment.
Selection make_selection(const Context& c, const Vendor& v, const std::vector<Unit>& chosen,
                         std::vector<std::string> reasons) {
  Selection s;
  s.vendor = std::string(v.id);
  s.backend = v.backend_names.empty() ? std::string(v.id) : std::string(v.backend_names[0]);
  s.torch_device = std::string(v.torch_device);
  s.dist_backend = std::string(v.dist_backend);
  bool any_partition =
      std::any_of(chosen.begin(), chosen.end(), [](const Unit& u) { return u.partition; });
  std::vector<std::string> ids;
  for (const auto& u : chosen) {
    s.devices.push_back(unit_facts(u));
    if (any_partition)
      s.partitions.push_back(u.partition ? std::optional<Partition>(*u.partition) : std::nullopt);
    ids.push_back(unit_id(u));
    reasons.push_back(unit_line(u));
  }
  int nproc = c.in.processes_per_node.value_or(std::max<int>(1, static_cast<int>(chosen.size())));
  auto local = cpus_of(s.devices);
  std::string_view what = "CPUs local to the chosen devices";
  if (local.empty()) {
    local = c.in.affinity.empty() ? host_cpus(c.inv) : c.in.affinity;
    what = "CPUs (device locality unknown)";
  }
  s.num_workers = workers(local, c.in.affinity, nproc, what, reasons);
  s.env = {{"ANYGPU_VENDOR", s.vendor},
           {"ANYGPU_BACKEND", s.backend},
           {"ANYGPU_TORCH_DEVICE", s.torch_device},
           {"ANYGPU_DIST_BACKEND", s.dist_backend},
           {"ANYGPU_DEVICES", join(ids, ",")},
           {"ANYGPU_NUM_WORKERS", std::to_string(s.num_workers)}};
  for (const auto& e : v.extra_env) s.env.emplace_back(std::string(e.name), std::string(e.value));
  if (vendor_tiled(c.inv, v.id))
    s.env.emplace_back(std::string(kZeHierarchyEnv), std::string(kZeHierarchyFlat));
  // Exactly one in-process visible-devices variable: the registry's, in its runtime's names.
  if (!v.visible_devices_env.empty())
    s.env.emplace_back(std::string(v.visible_devices_env), join(visible_entries(c, chosen), ","));
  if (!c.in.allocation_governs)
    for (auto name : v.conflicting_env)
      if (c.in.caller_env.count(std::string(name))) {
        s.unset.emplace_back(name);
        reasons.push_back(
            cat({"unsetting the caller's ", name, "=", c.in.caller_env.at(std::string(name)), ": ",
                 v.id, "'s runtime would narrow or re-index ", v.visible_devices_env}));
      }
  s.reasons = std::move(reasons);
  if (any_partition) partition_warnings(chosen, v.visible_devices_env, s);
  return s;
}

}  // namespace

Result<Selection> select_devices(const Inventory& inv, const AcceleratorConfig& cfg,
                                 const SelectInputs& in, const Registry& registry) {
  std::vector<std::string> reasons;
  if (cfg.backend == "cpu") return cpu_selection(inv, in, {"backend: cpu was asked for"});

  for (const auto& d : inv.devices)
    if (!d.selectable())
      reasons.push_back(cat({"skipped ", label(d), ": ", to_string(d.status)}));
    else if (d.lends_to_vfs())
      reasons.push_back(cat({"skipped ", label(d), ": physical function of ",
                             std::to_string(d.sriov->num_vfs), " SR-IOV virtual functions"}));

  std::vector<const PolicyRule*> rules;
  for (const auto& r : cfg.policy) rules.push_back(&r);
  if (rules.empty()) rules.push_back(nullptr);

  std::vector<const Vendor*> vendors;
  for (const auto& v : registry.vendors())
    if (cfg.backend == "auto" || v.id == cfg.backend) vendors.push_back(&v);
  if (cfg.backend != "auto" && vendors.empty())
    return bad_input(cat({"backend '", cfg.backend_written, "' names no known vendor"}));

  Context c{inv, cfg, in, selection_units(inv), {}, {}, {}};
  name_units(c, registry);
  if (!cfg.list.empty())
    if (auto error = check_list(c, vendors)) return *error;
  if (auto applied = apply_caller_visible(c, vendors, reasons); !applied) return applied.error();

  std::vector<std::string> misses;
  std::vector<Rejection> rejected;
  auto winner = find_winner(c, rules, vendors, misses, rejected);
  for (const auto& r : rejected) reasons.push_back(rejection_line(r));
  reasons.insert(reasons.end(), misses.begin(), misses.end());
  if (!winner) {
    auto fallback = no_winner(c, misses, std::move(reasons));
    if (fallback) fallback->rejected = std::move(rejected);
    return fallback;
  }

  const Candidate& w = winner->candidate;
  reasons.push_back(cat({rule_name(winner->rule), " matched ", std::to_string(w.eligible.size()),
                         " ", w.vendor->id, " ", noun(w.partitioned, w.eligible.size())}));
  if (!w.left_out.empty()) reasons.push_back(w.left_out);
  auto chosen = choose_units(cfg, w, w.vendor->id, in.closeness, reasons);
  auto s = make_selection(c, *w.vendor, chosen, std::move(reasons));
  if (winner->rule) s.priority = winner->rule->priority;
  s.rejected = std::move(rejected);
  return s;
}

std::string primary_vendor(const Inventory& inventory, const Registry& registry) {
  auto chosen = select_devices(inventory, AcceleratorConfig{}, SelectInputs{}, registry);
  if (chosen && chosen->vendor != "cpu") return chosen->vendor;
  const Vendor* best = nullptr;
  size_t best_count = 0;
  for (const auto& v : registry.vendors()) {
    auto n = inventory.of_vendor(v.id).size();
    if (n > best_count) best = &v, best_count = n;
  }
  return best ? std::string(best->id) : std::string("none");
}

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

std::vector<int> current_affinity() {
  for (int n = 1024; n <= 65536; n *= 4) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (!set) return {};
    size_t size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      std::vector<int> out;
      for (int i = 0; i < n; ++i)
        if (CPU_ISSET_S(i, size, set)) out.push_back(i);
      CPU_FREE(set);
      return out;
    }
    CPU_FREE(set);
    if (errno != EINVAL) return {};
  }
  return {};
}

}  // namespace anygpu
