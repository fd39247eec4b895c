#include "ps/processes.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "model/partition_key.h"
#include "util/strings.h"

namespace anygpu::ps {

namespace {

constexpr std::string_view kProc = "/proc";
constexpr std::string_view kPasswd = "/etc/passwd";

// Looked up with the string_view of a link's target, no copy per descriptor.
struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
// Whose a node is: a device, and the partition when the node is that partition's alone.
struct NodeOwner {
  std::string bus;
  std::optional<std::string> partition;  // "<bus id>/<index>"
};
using NodeMap = std::unordered_map<std::string, NodeOwner, ViewHash, std::equal_to<>>;

// A node that belongs to one partition of the device and no other: an AMD partition's DRM
// nodes, a MIG compute instance's CI cap node. A MIG parent /dev/nvidiaN, or a GI cap node
// its compute instances share, says only the device.
std::map<std::string, std::string> own_partition_nodes(const Device& d) {
  std::map<std::string, int> uses;
  for (const auto& p : d.partitions)
    for (const auto& n : p.device_nodes) ++uses[n];
  std::map<std::string, std::string> out;
  for (const auto& p : d.partitions)
    for (const auto& n : p.device_nodes)
      if (uses[n] == 1) out.emplace(n, partition_key(d, p));
  return out;
}

// Node path → owner, for every per-device node of every listed device and every node of its
// partitions (a process on a partition other than the first holds none of the device's own
// nodes). Under --root the same node also appears with the root's prefix (a process on this
// machine that opened the fixture's file).
NodeMap device_nodes(const HostRoot& host, const Inventory& inv) {
  NodeMap nodes;
  auto add = [&](const std::string& path, const NodeOwner& owner) {
    nodes.emplace(path, owner);
    if (!host.is_real_root()) nodes.emplace(host.outside(path), owner);
  };
  for (const auto& d : inv.devices) {
    auto bus = d.pci.address.str();
    for (const auto& [path, id] : own_partition_nodes(d)) add(path, {bus, id});
    std::vector<std::string> paths = d.device_nodes;
    if (d.render_node) paths.push_back(*d.render_node);
    if (d.card_node) paths.push_back(*d.card_node);
    for (const auto& p : d.partitions)
      paths.insert(paths.end(), p.device_nodes.begin(), p.device_nodes.end());
    for (const auto& p : paths) add(p, {bus, std::nullopt});
  }
  return nodes;
}

std::map<uint32_t, std::string> read_users(const HostRoot& host) {
  std::map<uint32_t, std::string> users;
  auto text = host.read_file(kPasswd, size_t{4} << 20);
  if (!text) return users;
  for (auto line : split_lines(*text)) {
    auto f = split(line, ':');
    if (f.size() < 3 || f[0].empty()) continue;
    if (auto uid = parse_uint(f[2]); uid && *uid <= UINT32_MAX)
      users.emplace(static_cast<uint32_t>(*uid), std::string(f[0]));
  }
  return users;
}

// The letter of the "State:\tS (sleeping)" line.
std::optional<char> state_letter(std::string_view status) {
  for (auto line : split_lines(status)) {
    if (!line.starts_with("State:")) continue;
    auto v = trim(line.substr(6));
    if (v.empty() || !std::isalpha(static_cast<unsigned char>(v[0]))) return std::nullopt;
    return v[0];
  }
  return std::nullopt;
}

std::optional<uint32_t> real_uid(std::string_view status) {
  for (auto line : split_lines(status)) {
    if (!line.starts_with("Uid:")) continue;
    auto fields = split(trim(line.substr(4)), '\t');
    if (fields.empty()) return std::nullopt;
    auto uid = parse_uint(fields[0]);
    if (uid && *uid <= UINT32_MAX) return static_cast<uint32_t>(*uid);
  }
  return std::nullopt;
}

void merge_client(ProcessInfo& p, const DrmClient& c, const std::string& bus) {
  if (auto m = c.device_memory()) {
    p.memory_bytes = p.memory_bytes.value_or(0) + *m;
    p.memory_by_device[bus] += *m;
  }
  for (const auto& [e, ns] : c.engine_ns) {
    p.engine_ns[e] += ns;
    p.engine_ns_by_device[bus][e] += ns;
  }
  for (const auto& [e, n] : c.engine_cycles) p.engine_cycles[e] += n;
}

// Command, user (/etc/passwd read once, when first needed) and cgroup attribution.
class Owners {
 public:
  explicit Owners(const HostRoot& host) : host_(host) {}
  void describe(const std::string& base, ProcessInfo& p) {
    if (auto comm = host_.read_value(base + "/comm")) p.command = *comm;
    if (auto status = host_.read_file(base + "/status", kSmallFileBytes)) {
      p.state = state_letter(*status);
      if (auto uid = real_uid(*status)) {
        if (!read_) {
          users_ = read_users(host_);
          read_ = true;
        }
        auto u = users_.find(*uid);
        p.user = u != users_.end() ? u->second : std::to_string(*uid);
      }
    }
    if (auto cg = host_.read_file(base + "/cgroup", kSmallFileBytes))
      p.attribution = parse_cgroup(*cg);
  }

 private:
  const HostRoot& host_;
  std::map<uint32_t, std::string> users_;
  bool read_ = false;
};

}  // namespace

void add_library_processes(const HostRoot& host, const health::LibraryHealth& library,
                           ProcessScan& scan) {
  Owners owners(host);
  for (const auto& [bus, facts] : library.devices) {
    if (!facts.processes) continue;
    for (const auto& lp : *facts.processes) {
      auto it = std::find_if(scan.processes.begin(), scan.processes.end(),
                             [&](const ProcessInfo& p) { return p.pid == lp.pid; });
      if (it == scan.processes.end()) {
        // Listed by the library only: its device node is not visible through /proc (a
        // process in a container, or one whose descriptors this user may not read).
        ProcessInfo p;
        p.pid = lp.pid;
        owners.describe(cat({kProc, "/", std::to_string(lp.pid)}), p);
        scan.processes.push_back(std::move(p));
        it = std::prev(scan.processes.end());
      }
      if (std::find(it->devices.begin(), it->devices.end(), bus) == it->devices.end()) {
        it->devices.push_back(bus);
        std::sort(it->devices.begin(), it->devices.end());
      }
      // The driver publishes no DRM statistics for NVIDIA: the library's figure, summed over
      // the process's devices.
      if (lp.used_bytes && !it->memory_from_drm) {
        it->memory_bytes = it->memory_bytes.value_or(0) + *lp.used_bytes;
        it->memory_by_device[bus] += *lp.used_bytes;
      }
      if (lp.busy_percent) it->busy_ratio_by_device[bus] = *lp.busy_percent / 100.0;
    }
  }
  std::sort(scan.processes.begin(), scan.processes.end(),
            [](const auto& a, const auto& b) { return a.pid < b.pid; });
}

namespace {

// One process's descriptors: its devices and DRM statistics, or nothing when it holds none.
struct FdScan {
  std::optional<ProcessInfo> holder;
  bool hidden = false;
};

FdScan scan_fds(const HostRoot& host, const NodeMap& nodes, const std::string& base) {
  FdScan out;
  // (fd, owner) of the descriptors that name a device node: a few among thousands.
  std::vector<std::pair<std::string, const NodeOwner*>> hits;
  auto done = host.for_each_link(base + "/fd", [&](std::string_view fd, std::string_view target) {
    auto hit = nodes.find(target);
    if (hit != nodes.end()) hits.emplace_back(fd, &hit->second);
  });
  if (!done) {
    // EACCES: another user's process; ENOENT: it exited meanwhile
    out.hidden = done.error().sys_errno == EACCES;
    return out;
  }
  if (hits.empty()) return out;
  // fd name order, as the devices' DRM clients merge
  std::sort(hits.begin(), hits.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  ProcessInfo p;
  std::set<std::string> devices, partitions;
  std::set<std::pair<std::string, uint64_t>> clients;  // one DRM client counted once
  for (const auto& [fd, owner] : hits) {
    const auto& bus = owner->bus;
    devices.insert(bus);
    if (owner->partition) partitions.insert(*owner->partition);
    auto info = host.read_file(cat({base, "/fdinfo/", fd}), kSmallFileBytes);
    if (!info) continue;
    auto client = parse_fdinfo(*info);
    if (!client.is_drm()) continue;
    if (client.pdev) devices.insert(*client.pdev);
    const auto& client_bus = client.pdev.value_or(bus);
    if (client.client_id && !clients.emplace(client_bus, *client.client_id).second) continue;
    merge_client(p, client, client_bus);
  }
  p.memory_from_drm = p.memory_bytes.has_value();
  p.devices.assign(devices.begin(), devices.end());
  p.partitions.assign(partitions.begin(), partitions.end());
  out.holder = std::move(p);
  return out;
}

// The CPUs this process may run on (its affinity mask), at least one.
size_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// Every process's descriptors. The readlinkat per descriptor is the whole cost and the kernel
// answers it on several CPUs at once: processes are handed out in chunks to up to four threads
// (docs/benchmarks.md: a real /proc of 100,000 descriptors on an idle 2-core host, 309 ms on
// one thread, 189 ms on two). A small /proc is not worth a thread.
std::vector<FdScan> scan_all_fds(const HostRoot& host, const NodeMap& nodes,
                                 const std::vector<std::pair<int, std::string>>& pids) {
  constexpr size_t kChunk = 32, kMaxThreads = 4, kPidsPerThread = 256;
  std::vector<FdScan> out(pids.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t at; (at = next.fetch_add(kChunk)) < pids.size();)
      for (size_t i = at; i < std::min(at + kChunk, pids.size()); ++i)
        out[i] = scan_fds(host, nodes, pids[i].second);
  };
  size_t threads = std::min({kMaxThreads, usable_cpus(), pids.size() / kPidsPerThread + 1});
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the others (and this one) do the rest
    }
  }
  work();
  for (auto& h : helpers) h.join();
  return out;
}

}  // namespace

ProcessScan scan_processes(const HostRoot& host, const Inventory& inv) {
  ProcessScan scan;
  auto nodes = device_nodes(host, inv);
  if (nodes.empty()) return scan;
  auto entries = host.list_dir(kProc);
  if (!entries) {
    scan.unreadable = entries.error().message;
    return scan;
  }
  std::vector<std::pair<int, std::string>> pids;  // pid, its directory beneath kProc
  for (const auto& name : *entries) {
    auto pid = parse_uint(name);
    if (!pid || *pid == 0 || *pid > INT32_MAX) continue;
    pids.emplace_back(static_cast<int>(*pid), cat({kProc, "/", name}));
  }
  auto found = scan_all_fds(host, nodes, pids);
  Owners users(host);
  for (size_t i = 0; i < pids.size(); ++i) {
    if (found[i].hidden) ++scan.hidden;
    if (!found[i].holder) continue;
    auto& p = *found[i].holder;
    p.pid = pids[i].first;
    users.describe(pids[i].second, p);
    scan.processes.push_back(std::move(p));
  }
  std::sort(scan.processes.begin(), scan.processes.end(),
            [](const auto& a, const auto& b) { return a.pid < b.pid; });
  return scan;
}

std::vector<ProcessInfo> stale_processes(const ProcessScan& before, const ProcessScan& after) {
  std::vector<ProcessInfo> out;
  for (const auto& now : after.processes) {
    if (!now.memory_bytes || *now.memory_bytes == 0 || !now.has_activity_counters()) continue;
    auto then = std::find_if(before.processes.begin(), before.processes.end(),
                             [&](const auto& p) { return p.pid == now.pid; });
    if (then == before.processes.end()) continue;  // new since the first scan: no window yet
    if (then->engine_ns == now.engine_ns && then->engine_cycles == now.engine_cycles)
      out.push_back(now);
  }
  return out;
}

std::optional<std::string> why_not_every_process(const HostRoot& host, uint32_t euid) {
  auto status = host.read_file(cat({kProc, "/self/status"}), kSmallFileBytes);
  if (!status)
    return cat({"cannot tell whether /proc shows every process (", status.error().message, ")"});
  std::optional<size_t> pids;
  for (auto line : split_lines(*status)) {
    if (!line.starts_with("NSpid:")) continue;
    pids = 0;
    for (auto p : split(trim(line.substr(6)), '\t'))
      if (!trim(p).empty()) ++*pids;
  }
  if (!pids || *pids == 0)
    return "cannot tell whether /proc shows every process (/proc/self/status has no NSpid line: "
           "a kernel before 4.1)";
  if (*pids > 1)
    return "this process runs in a PID namespace of its own: /proc shows no process outside it";
  if (euid == 0) return std::nullopt;
  auto mounts = host.read_file(cat({kProc, "/self/mountinfo"}), size_t{4} << 20);
  if (!mounts)
    return cat(
        {"cannot tell whether /proc hides other users' processes (", mounts.error().message, ")"});
  for (auto line : split_lines(*mounts)) {
    // "… /proc … - proc proc rw,hidepid=2": the mount point is field 5, the options the last.
    auto fields = split(line, ' ');
    if (fields.size() < 5 || fields[4] != kProc) continue;
    auto options = split(fields.back(), ',');
    for (auto o : options)
      if (o.starts_with("hidepid=") && o != "hidepid=0" && o != "hidepid=off")
        return cat({"/proc is mounted with ", o,
                    ": it hides other users' processes from a "
                    "user who is not root"});
  }
  return std::nullopt;
}

bool holder_ended(const ProcessInfo& p) {
  return p.state && (*p.state == 'Z' || *p.state == 'X');
}

}  // namespace anygpu::ps
