// `anygpu ps`: processes holding any registry vendor's per-device node, found through
// /proc/PID/fd beneath the HostRoot, with DRM client statistics (fdinfo) and attribution
// (container, pod, Slurm job) from /proc/PID/cgroup.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"
#include "model/library_facts.h"
#include "ps/cgroup.h"
#include "ps/fdinfo.h"

namespace anygpu::ps {

struct ProcessInfo {
  int pid = 0;
  std::optional<std::string> user;
  std::string command;
  std::vector<std::string> devices;  // PCI bus ids, sorted
  std::optional<uint64_t> memory_bytes;
  std::map<std::string, uint64_t> engine_ns;      // busy ns per engine, summed over clients
  std::map<std::string, uint64_t> engine_cycles;  // xe
  Attribution attribution;
  bool memory_from_drm = false;  // memory_bytes from fdinfo (else from a library, or absent)
  // From the kubelet's pod-resources API, for a process in a pod (attribution.pod_uid).
  std::optional<std::string> pod_name{}, pod_namespace{};
  std::map<std::string, uint64_t> memory_by_device{};  // memory_bytes split per PCI bus id
  // Partitions ("<bus id>/<index>") whose own nodes the process holds, sorted; their devices
  // are in `devices` too.
  std::vector<std::string> partitions{};
  // The State letter of /proc/PID/status (R S D Z X …); absent when /proc had no such
  // process or its status could not be read.
  std::optional<char> state{};
  // From a vendor library's per-process utilisation (NVML's, where the driver publishes no DRM
  // statistics): the share 0..1 of its most recent samples that the device's compute engines
  // worked for this process, per PCI bus id; absent where the library does not say.
  std::map<std::string, double> busy_ratio_by_device{};
  // engine_ns split per PCI bus id (the device each DRM client names): what per-job busy time
  // and energy shares are computed from.
  std::map<std::string, std::map<std::string, uint64_t>> engine_ns_by_device{};

  bool has_activity_counters() const { return !engine_ns.empty() || !engine_cycles.empty(); }
};

struct ProcessScan {
  std::vector<ProcessInfo> processes;  // by pid
  int hidden = 0;                      // processes whose fds this user may not read
  // Why /proc could not be listed (then `processes` holds only what a library listed).
  std::optional<std::string> unreadable{};
};

ProcessScan scan_processes(const HostRoot& host, const Inventory& inv);

// Adds what a vendor library lists (NVML's running compute processes): their devices, their
// used memory where the driver publishes no DRM statistics, and processes /proc did not show
// holding a device node.
void add_library_processes(const HostRoot& host, const health::LibraryHealth& library,
                           ProcessScan& scan);

// Holders of device memory whose engine counters did not move between two scans.
std::vector<ProcessInfo> stale_processes(const ProcessScan& before, const ProcessScan& after);

// Why /proc may not show every process of the host, or nullopt when it does: this process is in
// a PID namespace of its own (more than one pid on the NSpid line of /proc/self/status), or /proc
// is mounted with hidepid and `euid` is not root. Unreadable files are a reason too (a kernel
// before 4.1 has no NSpid).
std::optional<std::string> why_not_every_process(const HostRoot& host, uint32_t euid);

// Whether a holder has ended and holds nothing any more: a zombie or dead process (State Z or
// X). A pid a vendor library lists that /proc does not show has not ended as far as anyone can
// tell: it may live in another PID namespace, or be hidden by hidepid.
bool holder_ended(const ProcessInfo& p);

}  // namespace anygpu::ps
