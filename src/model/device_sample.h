// One device's metrics, the schema every source fills (kernel files, a vendor library's
// sampler): a value a source cannot give is absent (never 0). In model/ because the vendor
// libraries' samplers (src/vendorlib/) fill it below the metrics area that merges and renders it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace anygpu {

// One partition of a device (a MIG instance) whose source samples partitions on their own. It
// carries only what the source gives per partition (NVML: memory); utilisation, power and
// temperature exist per parent GPU only and stay on the parent, absent here.
struct PartitionSample {
  int index = 0;   // as in `anygpu detect`
  std::string id;  // the inventory's partition id: MIG-<uuid>, else "<bus id>/<index>"
  std::optional<std::string> profile;
  // The library's key for it (MIG GPU and compute instance ids), matched to the inventory's
  // partition; not rendered.
  unsigned gpu_instance = 0, compute_instance = 0;
  std::optional<double> memory_used_bytes, memory_total_bytes;
};

struct DeviceSample {
  std::string vendor;  // registry id
  int index = 0;       // per vendor, as in `anygpu detect`
  std::string pci_bus_id;
  std::optional<std::string> uuid, name;
  std::optional<double> utilization_ratio;  // 0..1
  std::optional<double> memory_used_bytes, memory_total_bytes;
  std::optional<double> temperature_celsius;           // the headline sensor (edge, else junction)
  std::map<std::string, double> temperatures_celsius;  // every sensor by label
  std::optional<double> power_watts;
  std::optional<double> power_limit_watts;     // the enforced cap (amdgpu power1_cap, NVML)
  std::optional<double> energy_joules;         // monotonic counter
  std::map<std::string, double> clocks_hertz;  // "graphics", "memory", "sm", …
  std::vector<PartitionSample> partitions;     // in the inventory's order; empty unpartitioned
  // Why a value is absent although its source exists (unreadable or malformed file, a library
  // call that failed), each naming the file or call.
  std::vector<std::string> warnings;
};

}  // namespace anygpu
