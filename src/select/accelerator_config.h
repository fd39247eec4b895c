// accelerator-config.yaml: which backend, which devices, by what policy (`anygpu select`).
// Parsing is strict: unknown keys, wrong types and bad values are bad_input with FILE:LINE:COLUMN.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

enum class CriterionType {
  gpu_vendor,
  gpu_compute_capability,
  driver_version,
  memory_gb,
  device_count,
  // Occupancy (select/occupancy.h): judged on one metrics sample and one process scan.
  free_memory_gb,
  utilization,
  holders
};
std::string_view to_string(CriterionType t);

struct Criterion {
  CriterionType type = CriterionType::gpu_vendor;
  std::vector<std::string> equals;   // gpu_vendor ids; gpu_compute_capability arch names
  std::optional<std::string> min;    // driver_version "535.54.03"; compute capability "sm_80"
  std::optional<double> min_number;  // memory_gb, free_memory_gb (GiB), device_count
  std::optional<double> max_number;  // utilization (a ratio 0..1), holders (processes)
  std::string where;                 // "FILE:LINE:COLUMN" of the criterion, for reasons
};

struct PolicyRule {
  long priority = 0;
  std::vector<Criterion> criteria;  // all must hold; empty = any device
  std::string where;
};

// One entry of a `devices:` list: a device by PCI bus id or per-vendor index, or a partition by
// "<bus id>/<partition>", "<index>:<partition>" (nvidia-ctk's MIG index form) or "MIG-<uuid>".
struct DeviceRef {
  std::optional<std::string> bus_id;  // canonical "0000:18:00.0"
  std::optional<int> index;
  std::optional<int> partition;     // with bus_id or index
  std::optional<std::string> uuid;  // "MIG-…", as written
  std::string text() const;
  bool operator==(const DeviceRef&) const = default;
};

// Parses one entry; nullopt when it is none of the forms above.
std::optional<DeviceRef> parse_device_ref_text(std::string_view text);

struct AcceleratorConfig {
  std::string file;              // where it came from ("" when absent: the defaults)
  std::string backend = "auto";  // auto | cpu | a vendor id (backend names resolved at parse)
  std::string backend_written = "auto";  // as written, for messages
  std::vector<PolicyRule> policy;        // sorted by priority (stable)
  // devices: all (neither set) | count | list
  std::optional<int> count;
  std::vector<DeviceRef> list;
  // Who wrote the list, for messages: "FILE:LINE:COLUMN: devices", "SLURM_STEP_GPUS=0,1", …
  std::string list_origin = "devices";
  std::optional<std::string> runtime_contract;  // resolved against the config's directory
};

// `--devices all|N|ID[,ID…]` (select, run): replaces the config's `devices:`. A lone number is
// a count; "0," is the list naming device 0. bad_input naming the option and the entry otherwise.
Result<bool> apply_devices_option(AcceleratorConfig& config, std::string_view text);

// `text` read from `file` (the name used in messages). Relative runtime_contract paths are
// resolved against the directory of `file`.
Result<AcceleratorConfig> parse_accelerator_config(std::string_view text, const std::string& file,
                                                   const Registry& registry = Registry::builtin());

// Reads and parses `path`. A missing file is the defaults (backend: auto) when `must_exist` is
// false, else bad_input. Files larger than kMaxConfigBytes are refused with the location where
// the limit was crossed.
inline constexpr size_t kMaxConfigBytes = size_t{1} << 20;
Result<AcceleratorConfig> load_accelerator_config(const std::string& path, bool must_exist,
                                                  const Registry& registry = Registry::builtin());

// The vendor a backend name or vendor id stands for ("cuda" -> nvidia, "amd" -> amd);
// "auto" and "cpu" map to themselves; nullopt when unknown.
std::optional<std::string> resolve_backend(std::string_view name, const Registry& registry);

}  // namespace anygpu
