// Container Device Interface specs: reading the ones a host has (/etc/cdi, /var/run/cdi) and
// generating one for the devices anygpu discovered, for any vendor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

struct CdiDevice {
  std::string name;                       // "0", "all", a bus id or uuid
  std::vector<std::string> device_paths;  // containerEdits.deviceNodes[].path (container side)
  std::vector<std::string> host_paths;    // hostPath, or path when hostPath is absent
};

struct CdiSpec {
  std::string file;  // host path of the spec file
  std::string cdi_version;
  std::string kind;  // "vendor.com/class"
  std::vector<CdiDevice> devices;
  std::vector<std::string> common_device_paths;  // spec-level containerEdits device nodes
};

// Every *.json / *.yaml spec beneath the host root's CDI directories; a malformed file is a
// bad_input error naming the file (and line:column for YAML).
Result<std::vector<CdiSpec>> read_cdi_specs(const HostRoot& host);

// Fully qualified names ("kind=name"), one per device, when one spec has a device whose nodes
// are exactly each device's own nodes; absent when no spec covers all of them.
std::optional<std::vector<std::string>> cdi_names_for(const std::vector<CdiSpec>& specs,
                                                      const std::vector<Device>& devices,
                                                      const Registry& registry = Registry::builtin());

struct CdiGenerateOptions {
  // Prefix for hostPath values (a simulated host's nodes live beneath its root).
  std::string host_prefix;
};

// A CDI spec (YAML) for one vendor's devices: names by index, bus id, uuid and "all".
Result<std::string> generate_cdi_spec(const Inventory& inventory, const std::string& vendor,
                                      const CdiGenerateOptions& options,
                                      const Registry& registry = Registry::builtin());

}  // namespace anygpu
