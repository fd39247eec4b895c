// The doctor's checks. Each is a pure function of what it is given (the host beneath its root,
// the inventory, the environment and identity the process runs with), so tests drive them on
// fixture copies with whatever user, groups, limits and environment they need.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/loader.h"
#include "host/host_root.h"
#include "model/finding.h"
#include "model/inventory.h"
#include "registry/registry.h"

namespace anygpu {

struct DoctorContext {
  DoctorContext(const HostRoot& h, const Inventory& inv) : host(h), inventory(inv) {}

  const HostRoot& host;
  const Inventory& inventory;
  std::map<std::string, std::string> env;  // the environment the checks judge
  uid_t uid = 0;
  std::vector<gid_t> gids;                   // primary and supplementary groups
  std::optional<uint64_t> nofile_soft;       // RLIMIT_NOFILE soft limit (nullopt: unlimited)
  std::vector<std::string> python_sys_path;  // host paths; empty when no interpreter answered
  std::string python;                        // the interpreter, for the framework check

  std::optional<std::string> getenv(const std::string& name) const;
};

// Which device node of a vendor, and which group a user joins to reach it.
std::vector<Finding> check_drivers(const DoctorContext& ctx);
std::vector<Finding> check_device_access(const DoctorContext& ctx);
std::vector<Finding> check_containers(const DoctorContext& ctx);
std::vector<Finding> check_container_driver(const DoctorContext& ctx);
// User-space driver libraries of another version than the kernel module; a failed library.
std::vector<Finding> check_driver_userspace(const DoctorContext& ctx);
std::vector<Finding> check_kernel_for_rocm(const DoctorContext& ctx);
std::vector<Finding> check_open_files(const DoctorContext& ctx);
std::vector<Finding> check_library_shadowing(const DoctorContext& ctx);

// Library directories a Python environment's frameworks ship native code in (torch/lib,
// nvidia/*/lib, torch_npu/lib …), as host paths, for the shadowing check's starting points.
std::vector<std::string> framework_library_dirs(const HostRoot& host,
                                                const std::vector<std::string>& sys_path);

// How to replace the stale spec `file` of `kind`: anygpu's spec at its one path per vendor
// (cdi_spec_path(); `file` removed when it is another), or the vendor toolkit's own command
// rewriting `file` where the registry names one (the file may be that toolkit's).
std::string cdi_regenerate(std::string_view kind, const std::string& file);

// Sonames whose duplicates cause `undefined symbol` and driver-mismatch failures.
bool is_watched_soname(std::string_view soname);

}  // namespace anygpu
