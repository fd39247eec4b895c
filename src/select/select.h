// Device selection: an Inventory and an accelerator config in, the chosen devices and the
// environment every framework needs out. select_devices() is a pure function of its inputs
// (this process's CPU affinity is passed in); select_on_host() does the I/O around it.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "select/accelerator_config.h"
#include "select/occupancy.h"
#include "topo/closeness.h"
#include "util/result.h"

namespace anygpu {

struct SelectInputs {
  // Processes that will share the chosen devices on this node (torchrun's nproc-per-node);
  // absent: one per chosen device (one for the CPU fallback).
  std::optional<int> processes_per_node;
  // CPUs this process may run on (sched_getaffinity); empty when unknown.
  std::vector<int> affinity;
  // The caller's environment. Outside an allocation, a vendor's visible-devices variable in it
  // (CUDA_VISIBLE_DEVICES=3) restricts that vendor's devices — indices in PCI bus order or
  // UUIDs, as the vendor runtime reads them — and the vendor's conflicting variables in it are
  // reported for removal (Selection::unset).
  std::map<std::string, std::string> caller_env;
  // Inside a Slurm allocation its GPU list governs (apply_slurm_gpus) and the variables Slurm
  // set are its own numbering: the caller's variables neither restrict nor get removed here.
  bool allocation_governs = false;
  // Units another run holds (host/unit_lock.h), by lock key (a bus id, or "<bus id>/<index>" for
  // a partition), with who holds them: not eligible, with that as the reason. A device is held
  // when it or any of its partitions is; a partition when it or its whole device is. An explicit
  // `devices:` list is never swapped for others: a listed device held elsewhere fails the
  // selection.
  std::map<std::string, std::string> unavailable;
  // Links and PCIe switches between the host's devices (topo/closeness.h). Choosing n of more
  // units prefers n every two of which are directly linked, then n behind one PCIe switch,
  // before one NUMA node; empty (no links read) leaves the NUMA and root complex preference.
  Closeness closeness;
  // Free memory, utilisation and holders per unit (select/occupancy.h), read by the caller when
  // the config has occupancy criteria; a unit absent here has them unknown (never a pass).
  Occupancy occupancy;
};

// A unit a policy rule's criteria turned down, and why: for -v and --json's "rejected".
// (Units left out before any criterion — not usable, hidden by the caller's visible-devices
// variable, held by a run — are said as before.)
struct Rejection {
  std::string unit;   // its id: a bus id, or a partition's id
  std::string label;  // "amd 3 (0000:c6:00.0)"
  std::string vendor;
  std::optional<long> priority;  // the policy entry whose criteria rejected it
  std::string reason;            // the first criterion it failed, e.g. "utilization 88% is more
                                 // than 50%"
};

using EnvVar = std::pair<std::string, std::string>;

struct Selection {
  std::string vendor;   // registry id, or "cpu"
  std::string backend;  // the vendor's first backend name ("cuda", "rocm", …) or "cpu"
  std::string torch_device;
  std::string dist_backend;
  // The chosen units (select/units.h), in index order. A partition's entry is the partition as
  // a device of its own (partition_device(): its own nodes, memory and NUMA node);
  // `partitions` says which partition it is.
  std::vector<Device> devices;
  // Parallel to `devices` (or empty: no partitions): the partition each unit is, absent for a
  // whole device.
  std::vector<std::optional<Partition>> partitions;
  std::optional<long> priority;  // the policy entry that won, when a policy was given
  int num_workers = 1;
  std::vector<EnvVar> env;            // in output order
  std::vector<std::string> unset;     // caller variables to remove (conflicting with env)
  std::vector<std::string> reasons;   // why these devices (for -v)
  std::vector<Rejection> rejected;    // by rule tried, vendor, unit order
  std::vector<std::string> warnings;  // what the caller should know even without -v

  // The partition unit `i` is; null for a whole device.
  const Partition* partition_of(size_t i) const {
    return i < partitions.size() && partitions[i] ? &*partitions[i] : nullptr;
  }
};

Result<Selection> select_devices(const Inventory& inventory, const AcceleratorConfig& config,
                                 const SelectInputs& inputs,
                                 const Registry& registry = Registry::builtin());

// Whether one device satisfies a per-device criterion (device_count is a group criterion and
// holds for every device here; an occupancy criterion needs the unit's occupancy, absent here,
// so it does not hold). `why` gets a short explanation when it does not.
bool device_meets(const Device& d, const Criterion& c, std::string* why = nullptr);

// The host's primary vendor, one rule for select, wheel, k8s labels/job and host-init: the
// vendor `select` picks with no config (most usable devices, then registry order); when no
// device is usable (all suspended, unbound, passed through), the vendor with the most devices,
// then registry order; "none" for a host without accelerators.
std::string primary_vendor(const Inventory& inventory,
                           const Registry& registry = Registry::builtin());

// CPUs this process may run on, from sched_getaffinity; empty when that fails.
std::vector<int> current_affinity();

// This process's environment, for SelectInputs::caller_env.
std::map<std::string, std::string> process_environment();

}  // namespace anygpu
