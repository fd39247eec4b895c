// What makes a valid CDI spec fail on this host now: device nodes that no longer exist, mount
// sources that are gone, driver libraries of another version than the loaded kernel module.
// One judgement for both readers: `doctor` reports each (containers.cdi-stale,
// containers.cdi-mounts-gone, containers.cdi-driver-stale) and `run --container` uses no spec
// that has one.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cdi/cdi.h"
#include "container/driver_version.h"
#include "host/host_root.h"
#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

struct CdiSpecDefects {
  // "<kind>=<name>: /dev/nvidia3" or "containerEdits: /dev/nvidia-uvm": a runtime fails to
  // create a container that asks for such a device.
  std::vector<std::string> gone_nodes;
  // Mount sources that do not exist: the runtime refuses to start the container.
  std::vector<std::string> gone_mounts;
  // Versions ("535.104.05") of mounted driver libraries that are not the loaded module's.
  std::set<std::string> stale_driver_versions;
  std::optional<std::string> loaded_driver;  // the spec's vendor's module, when known

  bool any() const {
    return !gone_nodes.empty() || !gone_mounts.empty() || !stale_driver_versions.empty();
  }
  // One clause each, for a warning: "it names 1 device node that does not exist (…)".
  std::vector<std::string> reasons() const;
};

// The loaded kernel module version of a vendor's driver (absent when not known).
using LoadedDriver = std::function<std::optional<std::string>(std::string_view vendor)>;
// The version discovered devices report for their vendor's bound driver.
LoadedDriver loaded_driver_of(const std::vector<Device>& devices);
LoadedDriver loaded_driver_of(const std::vector<const Device*>& devices);

class CdiSpecJudge {
 public:
  CdiSpecJudge(const HostRoot& host, LoadedDriver loaded,
               const Registry& registry = Registry::builtin());

  // The spec's defects on this host; the vendor is the one whose cdi_kind the spec has.
  CdiSpecDefects defects(const CdiSpec& spec);

 private:
  struct VersionedLibraries {
    std::vector<DriverVersionShape> shapes;
    std::set<std::string> stems;  // "libcuda", "libnvidia-ml", …
  };
  const VersionedLibraries& versioned(const Vendor& vendor, const std::string& loaded);
  std::set<std::string> mounted_versions(const CdiSpec& spec, const VersionedLibraries& libs);

  const HostRoot& host_;
  LoadedDriver loaded_;
  const Registry& registry_;
  std::map<std::string, VersionedLibraries> versioned_;  // by vendor id, resolved once
};

// The vendor whose cdi_kind is `kind` (null when none).
const Vendor* vendor_of_cdi_kind(std::string_view kind,
                                 const Registry& registry = Registry::builtin());

}  // namespace anygpu
