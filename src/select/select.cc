#include "select/select.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "model/arch.h"
#include "probe/probe.h"
#include "probe/runtimes.h"
#include "registry/cpu_fallback.h"
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

std::string gib_text(double gib) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", gib);
  return buf;
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

struct Candidate {
  const Vendor* vendor = nullptr;
  std::vector<const Device*> eligible;
  std::vector<const Device*> listed;  // resolved `devices:` list, when one was given
};

// Picks `n` of `eligible` (index order), preferring one NUMA node, then one root complex.
std::vector<const Device*> pick_grouped(const std::vector<const Device*>& eligible, size_t n,
                                        std::vector<std::string>& reasons) {
  std::map<int, std::vector<const Device*>> by_numa;  // -1: unknown
  for (const auto* d : eligible) by_numa[d->numa_node.value_or(-1)].push_back(d);
  const std::string& vendor = eligible.front()->vendor;
  auto of = cat({std::to_string(n), " of ", std::to_string(eligible.size()), " eligible ", vendor,
                 " devices"});
  // Best: n on one NUMA node behind one root complex; then n on one NUMA node.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [node, devs] : by_numa) {
      if (devs.size() < n) continue;
      auto numa = numa_text(node < 0 ? std::nullopt : std::optional<int>(node));
      if (pass == 0) {
        std::map<std::string, std::vector<const Device*>> by_rc;
        for (const auto* d : devs) by_rc[d->pci.root_complex].push_back(d);
        for (const auto& [rc, group] : by_rc) {
          if (rc.empty() || group.size() < n) continue;
          std::vector<const Device*> out(group.begin(), group.begin() + static_cast<long>(n));
          reasons.push_back(cat({"chose ", of, " on ", numa, " behind PCI root complex ", rc,
                                 ": they share a NUMA node and a root complex"}));
          return out;
        }
      } else {
        std::vector<const Device*> out(devs.begin(), devs.begin() + static_cast<long>(n));
        reasons.push_back(
            cat({"chose ", of, " on ", numa, ": they share a NUMA node (no PCI root complex has ",
                 std::to_string(n), " of them)"}));
        return out;
      }
    }
  }
  // Spread over the fewest NUMA nodes: largest groups first.
  std::vector<std::pair<int, std::vector<const Device*>>> groups(by_numa.begin(), by_numa.end());
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<const Device*> out;
  std::vector<std::string> nodes;
  for (const auto& [node, devs] : groups) {
    if (out.size() == n) break;
    nodes.push_back(node < 0 ? "unknown" : std::to_string(node));
    for (const auto* d : devs) {
      if (out.size() == n) break;
      out.push_back(d);
    }
  }
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->index < b->index; });
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

// The devices of `v` a caller's visible-devices variable leaves visible; nullopt when the
// caller set none. Entries are vendor indices (PCI bus order, which anygpu makes the runtime's
// order) or UUIDs (a unique prefix, as CUDA accepts); an entry naming no device is an error.
Result<std::optional<std::set<const Device*>>> caller_visible(const Inventory& inv, const Vendor& v,
                                                              const SelectInputs& in) {
  using Visible = std::optional<std::set<const Device*>>;
  if (in.allocation_governs || v.visible_devices_env.empty()) return Visible();
  auto it = in.caller_env.find(std::string(v.visible_devices_env));
  if (it == in.caller_env.end()) return Visible();
  // Vendors share variables (CUDA_VISIBLE_DEVICES: NVIDIA, Iluvatar, T-Head): it restricts
  // only the vendors this host has.
  if (inv.of_vendor(v.id).empty()) return Visible();
  std::set<const Device*> out;
  std::vector<std::string> unknown;
  for (auto entry : split(it->second, ',')) {
    auto e = trim(entry);
    if (e.empty()) continue;
    std::vector<const Device*> hits;
    // "0.1" (ZE_AFFINITY_MASK: device 0, sub-device 1) keeps device 0 visible.
    auto dot = e.find('.');
    auto n = parse_int(dot == std::string_view::npos ? e : e.substr(0, dot));
    for (const auto& d : inv.devices) {
      if (d.vendor != v.id) continue;
      if ((n && d.index == *n) || (!n && d.uuid && d.uuid->starts_with(e))) hits.push_back(&d);
    }
    if (hits.size() != 1) {
      unknown.push_back(std::string(e));
      continue;
    }
    out.insert(hits.front());
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
  }
  return true;
}

Result<Selection> select_devices(const Inventory& inv, const AcceleratorConfig& cfg,
                                 const SelectInputs& in, const Registry& registry) {
  std::vector<std::string> reasons;
  if (cfg.backend == "cpu") return cpu_selection(inv, in, {"backend: cpu was asked for"});

  for (const auto& d : inv.devices)
    if (!d.selectable()) reasons.push_back(cat({"skipped ", label(d), ": ", to_string(d.status)}));

  std::vector<const PolicyRule*> rules;
  for (const auto& r : cfg.policy) rules.push_back(&r);
  if (rules.empty()) rules.push_back(nullptr);

  std::vector<const Vendor*> vendors;
  for (const auto& v : registry.vendors())
    if (cfg.backend == "auto" || v.id == cfg.backend) vendors.push_back(&v);
  if (cfg.backend != "auto" && vendors.empty())
    return bad_input(cat({"backend '", cfg.backend_written, "' names no known vendor"}));

  // An explicit list is a demand, not a preference: naming a device this host lacks is an
  // error (exit 3), never a quiet fall back to the CPU.
  if (!cfg.list.empty()) {
    std::vector<std::string> absent;
    for (const auto& ref : cfg.list) {
      bool found = false;
      for (const auto& d : inv.devices) {
        bool considered = std::any_of(vendors.begin(), vendors.end(),
                                      [&](const Vendor* v) { return v->id == d.vendor; });
        found = found || (considered && ((ref.bus_id && d.pci.address.str() == *ref.bus_id) ||
                                         (ref.index && d.index == *ref.index)));
      }
      if (!found) absent.push_back(ref.text());
    }
    if (!absent.empty())
      return host_error(
          cat({cfg.list_origin, ": no ",
               cfg.backend == "auto" ? std::string() : cat({cfg.backend, " "}), "device ",
               join(absent, ", "), " on this host (", std::to_string(inv.devices.size()), " device",
               inv.devices.size() == 1 ? "" : "s", " found)"}));
  }

  std::map<std::string_view, std::set<const Device*>> hidden_by_caller;
  for (const auto* v : vendors) {
    auto visible = caller_visible(inv, *v, in);
    if (!visible) return visible.error();
    if (!*visible) continue;
    auto& hidden = hidden_by_caller[v->id];
    for (const auto& d : inv.devices)
      if (d.vendor == v->id && !(*visible)->count(&d)) hidden.insert(&d);
    reasons.push_back(
        cat({v->visible_devices_env, "=", in.caller_env.at(std::string(v->visible_devices_env)),
             " from the caller: ", std::to_string((*visible)->size()), " ", v->id, " device",
             (*visible)->size() == 1 ? "" : "s", " visible"}));
  }

  std::vector<std::string> misses;
  const PolicyRule* winner_rule = nullptr;
  std::optional<Candidate> winner;
  for (const auto* rule : rules) {
    std::vector<Candidate> found;
    for (const auto* v : vendors) {
      Candidate c{v, {}, {}};
      size_t devices_of_vendor = 0;
      std::vector<std::string> why_not;
      for (const auto& d : inv.devices) {
        if (d.vendor != v->id) continue;
        ++devices_of_vendor;
        if (!d.selectable()) {
          why_not.push_back(cat({label(d), ": ", to_string(d.status)}));
          continue;
        }
        if (auto h = hidden_by_caller.find(v->id);
            h != hidden_by_caller.end() && h->second.count(&d)) {
          why_not.push_back(cat({label(d), ": hidden by the caller's ", v->visible_devices_env}));
          continue;
        }
        if (auto u = in.unavailable.find(d.pci.address.str()); u != in.unavailable.end()) {
          why_not.push_back(cat({label(d), ": ", u->second}));
          continue;
        }
        bool ok = true;
        if (rule)
          for (const auto& crit : rule->criteria) {
            std::string why;
            if (!device_meets(d, crit, &why)) {
              why_not.push_back(cat({label(d), ": ", why}));
              ok = false;
              break;
            }
          }
        if (ok) c.eligible.push_back(&d);
      }
      if (devices_of_vendor == 0) continue;
      auto miss = [&](std::string text) {
        misses.push_back(cat({rule_name(rule), ", ", v->id, ": ", text}));
      };
      if (c.eligible.empty()) {
        // One line per distinct explanation keeps 8 identical GPUs readable.
        std::vector<std::string> uniq;
        for (auto& w : why_not) {
          auto colon = w.find(": ");
          auto text = colon == std::string::npos ? w : w.substr(colon + 2);
          if (std::find(uniq.begin(), uniq.end(), text) == uniq.end()) uniq.push_back(text);
        }
        miss(cat({"no device qualifies (", join(uniq, "; "), ")"}));
        continue;
      }
      if (!cfg.list.empty()) {
        bool all = true;
        for (const auto& ref : cfg.list) {
          const Device* hit = nullptr;
          for (const auto* d : c.eligible)
            if ((ref.bus_id && d->pci.address.str() == *ref.bus_id) ||
                (ref.index && d->index == *ref.index))
              hit = d;
          if (!hit) {
            std::string why;
            for (const auto& d : inv.devices)
              if (d.vendor == v->id && ((ref.bus_id && d.pci.address.str() == *ref.bus_id) ||
                                        (ref.index && d.index == *ref.index)))
                for (const auto& w : why_not)
                  if (w.starts_with(label(d) + ": "))
                    why = cat({" (", w.substr(label(d).size() + 2), ")"});
            miss(
                cat({"listed device ", ref.text(), " is not an eligible ", v->id, " device", why}));
            all = false;
            break;
          }
          c.listed.push_back(hit);
        }
        if (!all) continue;
      }
      size_t need = cfg.list.empty() ? static_cast<size_t>(cfg.count.value_or(1)) : 1;
      if (rule)
        for (const auto& crit : rule->criteria)
          if (crit.type == CriterionType::device_count)
            need = std::max(need, static_cast<size_t>(*crit.min_number));
      if (c.eligible.size() < need) {
        miss(cat({"needs ", std::to_string(need), " devices, ", std::to_string(c.eligible.size()),
                  " qualify"}));
        continue;
      }
      found.push_back(std::move(c));
    }
    if (!found.empty()) {
      // One vendor per process: a discrete accelerator before integrated graphics (a laptop's
      // suspended dGPU wakes on use and is what its owner trains on), then the most qualifying
      // devices, then registry order.
      auto discrete = [](const Candidate& c) {
        return std::any_of(c.eligible.begin(), c.eligible.end(),
                           [](const Device* d) { return !d->integrated; });
      };
      std::stable_sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
        if (discrete(a) != discrete(b)) return discrete(a);
        return a.eligible.size() > b.eligible.size();
      });
      winner = found.front();
      winner_rule = rule;
      for (size_t i = 1; i < found.size(); ++i)
        misses.push_back(
            cat({rule_name(rule), ", ", found[i].vendor->id,
                 ": also qualifies, but a process uses one vendor (", found.front().vendor->id,
                 " has a discrete device, more qualifying devices or comes first in the "
                 "registry)"}));
      break;
    }
  }
  reasons.insert(reasons.end(), misses.begin(), misses.end());

  if (!winner) {
    if (cfg.backend != "auto") {
      auto msg = cat({"backend '", cfg.backend_written, "': no ", cfg.backend, " device matches"});
      bool any = false;
      for (const auto& d : inv.devices) any = any || d.vendor == cfg.backend;
      if (!any)
        msg += cat({": this host has no ", cfg.backend, " device"});
      else if (!misses.empty())
        msg += cat({": ", join(misses, "; ")});
      return host_error(msg);
    }
    if (!cfg.list.empty())
      return host_error(
          cat({cfg.list_origin, ": the listed devices cannot be used: ", join(misses, "; ")}));
    reasons.push_back(inv.devices.empty()
                          ? "no accelerator on this host: falling back to the CPU"
                          : "no accelerator matches the policy: falling back to the CPU");
    return cpu_selection(inv, in, std::move(reasons));
  }

  const Vendor& v = *winner->vendor;
  Selection s;
  s.vendor = std::string(v.id);
  s.backend = v.backend_names.empty() ? std::string(v.id) : std::string(v.backend_names[0]);
  s.torch_device = std::string(v.torch_device);
  s.dist_backend = std::string(v.dist_backend);
  if (winner_rule) s.priority = winner_rule->priority;
  reasons.push_back(
      cat({rule_name(winner_rule), " matched ", std::to_string(winner->eligible.size()), " ",
           s.vendor, " device", winner->eligible.size() == 1 ? "" : "s"}));

  std::vector<const Device*> chosen;
  if (!cfg.list.empty()) {
    chosen = winner->listed;
    std::sort(chosen.begin(), chosen.end(), [](auto* a, auto* b) { return a->index < b->index; });
    reasons.push_back(cat({"chose the ", std::to_string(chosen.size()), " listed device",
                           chosen.size() == 1 ? "" : "s"}));
  } else if (cfg.count && static_cast<size_t>(*cfg.count) < winner->eligible.size()) {
    chosen = pick_grouped(winner->eligible, static_cast<size_t>(*cfg.count), reasons);
  } else {
    chosen = winner->eligible;
    reasons.push_back(cat({"chose all ", std::to_string(chosen.size()), " eligible ", s.vendor,
                           " device", chosen.size() == 1 ? "" : "s"}));
  }
  std::vector<std::string> bus_ids, indices;
  for (const auto* d : chosen) {
    s.devices.push_back(*d);
    bus_ids.push_back(d->pci.address.str());
    indices.push_back(std::to_string(d->index));
    reasons.push_back(
        cat({"  ", label(*d), d->name ? cat({" ", *d->name}) : "", ", ", numa_text(d->numa_node),
             d->pci.root_complex.empty() ? "" : cat({", ", d->pci.root_complex})}));
  }

  int nproc = in.processes_per_node.value_or(std::max<int>(1, static_cast<int>(chosen.size())));
  auto local = cpus_of(s.devices);
  std::string_view what = "CPUs local to the chosen devices";
  if (local.empty()) {
    local = in.affinity.empty() ? host_cpus(inv) : in.affinity;
    what = "CPUs (device locality unknown)";
  }
  s.num_workers = workers(local, in.affinity, nproc, what, reasons);

  s.env = {{"ANYGPU_VENDOR", s.vendor},
           {"ANYGPU_BACKEND", s.backend},
           {"ANYGPU_TORCH_DEVICE", s.torch_device},
           {"ANYGPU_DIST_BACKEND", s.dist_backend},
           {"ANYGPU_DEVICES", join(bus_ids, ",")},
           {"ANYGPU_NUM_WORKERS", std::to_string(s.num_workers)}};
  for (const auto& e : v.extra_env) s.env.emplace_back(std::string(e.name), std::string(e.value));
  // Exactly one in-process visible-devices variable: the registry's, with the vendor's indices.
  if (!v.visible_devices_env.empty())
    s.env.emplace_back(std::string(v.visible_devices_env), join(indices, ","));
  if (!in.allocation_governs)
    for (auto name : v.conflicting_env)
      if (in.caller_env.count(std::string(name))) {
        s.unset.emplace_back(name);
        reasons.push_back(
            cat({"unsetting the caller's ", name, "=", in.caller_env.at(std::string(name)), ": ",
                 v.id, "'s runtime would narrow or re-index ", v.visible_devices_env}));
      }
  s.reasons = std::move(reasons);
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
