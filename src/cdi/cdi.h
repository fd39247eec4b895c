// Container Device Interface specs: reading the ones a host has (/etc/cdi, /var/run/cdi) and
// generating one for the devices anygpu discovered, for any vendor.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "container/container_edits.h"
#include "container/driver_source.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "util/diagnostics.h"
#include "util/result.h"

namespace anygpu {

struct CdiDevice {
  std::string name;                       // "0", "all", a bus id or uuid
  std::vector<std::string> device_paths;  // containerEdits.deviceNodes[].path (container side)
  std::vector<std::string> host_paths;    // hostPath, or path when hostPath is absent
  ContainerEdits edits;                   // everything its containerEdits grant
};

struct CdiSpec {
  std::string file;  // host path of the spec file
  int priority = 0;  // 0 for /etc/cdi, 1 for /var/run/cdi (which wins on a name clash)
  std::string cdi_version;
  std::string minimum_version;  // what the content needs (cdi/cdi_version.h)
  std::string kind;             // "vendor.com/class"
  std::vector<CdiDevice> devices;
  std::vector<std::string> common_device_paths;  // spec-level containerEdits device nodes
  ContainerEdits common_edits;                   // everything the spec-level edits grant
  // What makes the spec unsafe to hand any container: a read-write mount of / (or /dev, /etc,
  // /proc, /sys), a createRuntime or prestart hook (runs in the runtime's namespace on the
  // host), LD_PRELOAD or LD_AUDIT in the environment. One sentence each, naming the edit.
  std::vector<std::string> risks;
};

// The directories runtimes read, lowest priority first.
inline constexpr std::string_view kCdiSpecDirs[] = {"/etc/cdi", "/var/run/cdi"};

// Where anygpu writes a vendor's spec (`host-init`, doctor's fixes, the docs): one file per
// vendor, /etc/cdi/anygpu-<vendor>.yaml, so a regenerated spec replaces the old one instead
// of defining the same devices a second time (runtimes refuse a name two specs define).
std::string cdi_spec_path(std::string_view vendor);
// The command that writes `vendor`'s spec to `file`, as doctor's fixes print it:
// "anygpu cdi generate --vendor amd --output /etc/cdi/anygpu-amd.yaml" (--vendor always, so it
// runs as printed on a host with devices of several vendors).
std::string cdi_generate_command(std::string_view vendor, std::string_view file);

// Every *.json / *.yaml spec in the host root's CDI directories (not their subdirectories,
// which runtimes do not read); a malformed file is a
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

// Which CDI names `run --container` may use for the selected devices.
struct CdiChoice {
  std::optional<std::vector<std::string>> names;  // "kind=name", one per device, in order
  std::vector<std::string> warnings;              // why a spec that covers them was not used
};

// Why a spec fails on this host now (cdi/cdi_defects.h: nodes or mounts gone, another driver
// version), one clause each; empty when nothing does.
using CdiDefectsOf = std::function<std::vector<std::string>(const CdiSpec&)>;

// Names from the first spec (by priority, the vendor's own kind first) with, for each selected
// device, a device whose nodes are that device's own and include every node the container
// needs for it (`edits`), and only when the whole spec — its top-level edits and the chosen
// devices' edits — grants nothing beyond the selected devices' own nodes and the vendor's
// shared nodes, carries no risk and has no defect on this host (`defects`), and only names a
// runtime resolves to that spec (cdi/cdi_resolve.h: not refused as defined twice in one
// directory, not taken over by a spec in /var/run/cdi). A covering spec that fails any of
// this is named in a warning, with why.
CdiChoice choose_cdi_names(const std::vector<CdiSpec>& specs, const SelectionEdits& edits,
                           const Registry& registry = Registry::builtin(),
                           const CdiDefectsOf& defects = {});

// What `cdi list` marks on a spec: its risks, and top-level device nodes that are not shared
// nodes of the kind's vendor (the spec gives them to every device of the kind).
std::vector<std::string> cdi_spec_warnings(const CdiSpec& spec,
                                           const Registry& registry = Registry::builtin());

struct CdiGenerateOptions {
  // hostPath values as the host itself names them ("/dev/x") even beneath --root: for a spec
  // written into the root's own /etc/cdi (host-init). Otherwise hostPath is the file on this
  // machine ("<root>/dev/x" for a simulated host).
  bool host_view = false;
  // Where the driver's user space is found (`--driver-root`, e.g. /run/nvidia/driver) and the
  // anygpu binary the spec's hooks run (default: this one).
  DriverSourceOptions driver = {};
  // Where the edits' warnings go (what was found on the host but left out, and why).
  Diagnostics* diagnostics = nullptr;
};

// The vendor's CDI kind from the registry, else "anygpu.dev/<vendor id>".
std::string cdi_kind_for(const Vendor& vendor);

// A CDI spec (YAML) for one vendor's devices with the content container_edits() gives (nodes,
// mounts, env, hooks; only what exists on `host`): names by index, bus id, uuid and "all".
Result<std::string> generate_cdi_spec(const HostRoot& host, const Inventory& inventory,
                                      const std::string& vendor,
                                      const CdiGenerateOptions& options = {},
                                      const Registry& registry = Registry::builtin());

}  // namespace anygpu
