// Container Device Interface specs: reading the ones a host has (/etc/cdi, /var/run/cdi) and
// generating one for the devices anygpu discovered, for any vendor.
#pragma once

#include <functional>
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
  int priority = 0;  // 0 for /etc/cdi, 1 for /var/run/cdi (which wins on a name clash)
  std::string cdi_version;
  std::string minimum_version;  // what the content needs (cdi/cdi_version.h)
  std::string kind;             // "vendor.com/class"
  std::vector<CdiDevice> devices;
  std::vector<std::string> common_device_paths;  // spec-level containerEdits device nodes
};

// The directories runtimes read, lowest priority first.
inline constexpr std::string_view kCdiSpecDirs[] = {"/etc/cdi", "/var/run/cdi"};

// Every *.json / *.yaml spec beneath the host root's CDI directories; a malformed file is a
// bad_input error naming the file (and line:column for YAML and JSON). Under a root, a hostPath
// beneath that root is reported as the host sees it ("<root>/dev/x" -> "/dev/x").
Result<std::vector<CdiSpec>> read_cdi_specs(const HostRoot& host);

// The same scan, but a bad file does not hide the good ones (what `anygpu cdi list` shows).
struct CdiScan {
  std::vector<CdiSpec> specs;
  std::vector<Error> errors;  // one per unreadable or invalid file
};
CdiScan scan_cdi_specs(const HostRoot& host);

// One spec document; `file` names it in errors. Checks what runtimes check: known keys only,
// kind and device names by the CDI name rules, a released cdiVersion that is at least what
// the content needs, unique device names, absolute paths.
Result<CdiSpec> parse_cdi_spec(std::string_view text, const std::string& file);

// Fully qualified names ("kind=name"), one per device, when one spec has a device whose nodes
// are exactly each device's own nodes; absent when no spec covers all of them.
std::optional<std::vector<std::string>> cdi_names_for(
    const std::vector<CdiSpec>& specs, const std::vector<Device>& devices,
    const Registry& registry = Registry::builtin());

struct CdiGenerateOptions {
  // Prefix for hostPath values (a simulated host's nodes live beneath its root).
  std::string host_prefix;
  // Whether a host path ("/dev/nvidia0") exists; nodes and mounts that do not are left out,
  // because a runtime refuses a spec naming a missing node. Unset: everything is assumed.
  std::function<bool(const std::string&)> exists;
};

// The vendor's CDI kind from the registry, else "anygpu.dev/<vendor id>".
std::string cdi_kind_for(const Vendor& vendor);

// A CDI spec (YAML) for one vendor's devices: names by index, bus id, uuid and "all".
Result<std::string> generate_cdi_spec(const Inventory& inventory, const std::string& vendor,
                                      const CdiGenerateOptions& options,
                                      const Registry& registry = Registry::builtin());

}  // namespace anygpu
