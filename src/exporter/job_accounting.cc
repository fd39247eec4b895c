#include "exporter/job_accounting.h"

#include <algorithm>

namespace anygpu::exporter {

namespace {

using Clock = std::chrono::steady_clock;
using Group = std::optional<JobKey>;  // none: processes outside any job
// Engine ns that moved since the previous scan, per group, device and engine.
using Deltas = std::map<Group, std::map<std::string, std::map<std::string, uint64_t>>>;

// What an engine's counter moved by. A counter below its previous value lost a client (a
// descriptor closed); the clients that remain count from here on.
uint64_t moved(const std::map<std::string, uint64_t>* before, const std::string& engine,
               uint64_t now) {
  if (!before) return now;  // a holder new since the previous scan: all of its time is new
  auto it = before->find(engine);
  if (it == before->end()) return now;
  return now >= it->second ? now - it->second : 0;
}

// The group's busy time on a device over the window: its busiest engine (engines run side by
// side, so their sum would count one second twice), never more than the window.
double busy_seconds(const std::map<std::string, uint64_t>& engines, double window_s) {
  uint64_t most = 0;
  for (const auto& [engine, ns] : engines) most = std::max(most, ns);
  return std::min(static_cast<double>(most) / 1e9, window_s);
}

}  // namespace

std::optional<JobKey> job_of(const ps::Attribution& a) {
  if (a.slurm) return JobKey{"slurm", a.slurm->job_id};
  if (a.pod_uid) return JobKey{"pod", *a.pod_uid};
  if (a.container) return JobKey{"container", a.container->id};
  return std::nullopt;
}

JobAccountant::JobAccountant(const Inventory& inventory, JobAccountingOptions options)
    : options_(options) {
  for (const auto& d : inventory.devices)
    devices_.emplace(d.pci.address.str(), Device{d.vendor, d.index});
}

JobAccountant::Entry* JobAccountant::entry(const EntryKey& key,
                                           const std::set<EntryKey>& this_scan) {
  if (auto it = entries_.find(key); it != entries_.end()) return &it->second;
  if (entries_.size() >= options_.max_series) {
    // Full: the entry seen longest ago that this scan does not touch makes room (its job has
    // ended or left the device); when every entry is current, the newcomer is refused.
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (!this_scan.contains(it->first) &&
          (oldest == entries_.end() || it->second.last_seen < oldest->second.last_seen))
        oldest = it;
    ++dropped_cap_;
    if (oldest == entries_.end()) return nullptr;
    entries_.erase(oldest);
  }
  return &entries_[key];
}

JobSeries JobAccountant::update(const JobScan& scan) {
  const bool baseline = !at_;
  const double window_s = baseline ? 0 : std::chrono::duration<double>(scan.at - *at_).count();

  Deltas deltas;
  // Busy share per group and device from a library's per-process utilisation (0..1).
  std::map<Group, std::map<std::string, double>> sampled;
  std::map<std::pair<int, std::string>, std::map<std::string, uint64_t>> engines;
  std::map<EntryKey, uint64_t> memory;
  std::set<EntryKey> held, touched;
  for (const auto& p : scan.processes.processes) {
    auto job = job_of(p.attribution);
    if (job)
      for (const auto& bus : p.devices)
        if (devices_.contains(bus)) held.emplace(*job, bus);
    for (const auto& [bus, counters] : p.engine_ns_by_device) {
      if (!devices_.contains(bus)) continue;
      auto& group = deltas[job][bus];  // present: the group has counters on the device
      engines[{p.pid, bus}] = counters;
      auto before = engines_.find({p.pid, bus});
      for (const auto& [engine, ns] : counters)
        group[engine] +=
            baseline ? 0 : moved(before == engines_.end() ? nullptr : &before->second, engine, ns);
    }
    if (job)
      for (const auto& [bus, bytes] : p.memory_by_device)
        if (devices_.contains(bus)) memory[{*job, bus}] += bytes;
    // A library's utilisation share where the driver keeps no engine counters (NVIDIA).
    for (const auto& [bus, ratio] : p.busy_ratio_by_device)
      if (devices_.contains(bus) && !p.engine_ns_by_device.contains(bus))
        sampled[job][bus] = std::min(1.0, sampled[job][bus] + ratio);
  }
  touched = held;
  for (const auto& [group, buses] : deltas)
    if (group)
      for (const auto& [bus, engines_moved] : buses) touched.emplace(*group, bus);
  for (const auto& [group, buses] : sampled)
    if (group)
      for (const auto& [bus, ratio] : buses) touched.emplace(*group, bus);
  for (const auto& [job, buses] : scan.allocations)
    for (const auto& bus : buses)
      if (devices_.contains(bus)) touched.emplace(job, bus);

  // Every entry this scan speaks of exists from here on (or was refused, counted once).
  for (const auto& key : touched) {
    if (auto* e = entry(key, touched)) e->last_seen = scan.at;
  }
  auto find = [this](const EntryKey& key) -> Entry* {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  };

  // Busy time per group and device; the device's energy over the window split by it.
  std::map<std::string, std::vector<std::pair<const Group*, double>>> busy_by_bus;
  for (const auto& [group, buses] : deltas)
    for (const auto& [bus, engines_moved] : buses)
      busy_by_bus[bus].emplace_back(&group, busy_seconds(engines_moved, window_s));
  // The library's share stands for the whole window: its samples are the most recent ones.
  for (const auto& [group, buses] : sampled)
    for (const auto& [bus, ratio] : buses) {
      auto d = deltas.find(group);
      if (d == deltas.end() || !d->second.contains(bus))
        busy_by_bus[bus].emplace_back(&group, baseline ? 0.0 : ratio * window_s);
    }
  for (const auto& [bus, groups] : busy_by_bus) {
    std::optional<double> joules;
    auto now = scan.energy_joules.find(bus);
    auto then = energy_.find(bus);
    // A counter that went back was reset (a driver reload): that window is not known.
    if (!baseline && now != scan.energy_joules.end() && then != energy_.end() &&
        now->second >= then->second)
      joules = now->second - then->second;
    double total = 0;
    for (const auto& [group, busy] : groups) total += busy;
    for (const auto& [group, busy] : groups) {
      if (!*group) continue;
      auto* e = find({**group, bus});
      if (!e) continue;
      e->busy_seconds = e->busy_seconds.value_or(0) + busy;
      // No engine moved in the window: the holders with counters share the idle device's
      // energy equally (holding it is what keeps it from others).
      double share = total > 0 ? busy / total : 1.0 / static_cast<double>(groups.size());
      if (joules) e->energy_joules = e->energy_joules.value_or(0) + *joules * share;
    }
  }

  for (auto& [key, e] : entries_) {
    auto m = memory.find(key);
    e.memory_bytes = m != memory.end() ? std::optional<uint64_t>(m->second) : std::nullopt;
    e.allocated_idle = false;
  }
  for (const auto& [job, buses] : scan.allocations)
    for (const auto& bus : buses)
      if (devices_.contains(bus) && !held.contains({job, bus}))
        if (auto* e = find({job, bus})) e->allocated_idle = true;
  std::erase_if(entries_, [&](const auto& kv) {
    bool ended = scan.at - kv.second.last_seen > options_.keep_ended;
    if (ended) ++dropped_ended_;
    return ended;
  });

  engines_ = std::move(engines);
  energy_ = scan.energy_joules;
  at_ = scan.at;
  return series(scan.at);
}

JobSeries JobAccountant::series(Clock::time_point at) const {
  JobSeries out;
  out.dropped_cap = dropped_cap_;
  out.dropped_ended = dropped_ended_;
  out.max_series = options_.max_series;
  out.usage.reserve(entries_.size());
  for (const auto& [key, e] : entries_) {
    const auto& d = devices_.at(key.second);
    out.usage.push_back({key.first, key.second, d.vendor, d.index, e.busy_seconds, e.energy_joules,
                         e.memory_bytes, e.allocated_idle, e.last_seen == at});
  }
  return out;
}

}  // namespace anygpu::exporter
