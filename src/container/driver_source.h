// The edit source that hands containers the host driver's user space: the registry's
// `container.driver_files` resolved on the host (container/driver_files.h) as read-only bind
// mounts, the folders the container's loader must search, and two createContainer hooks that
// anygpu itself implements (`anygpu cdi hook update-ldcache`, `… create-dev-char-links`,
// container/cdi_hooks.h). Listed in default_edit_sources(), so CDI specs, `run --container` and
// doctor all carry it.
#pragma once

#include <string>

#include "container/container_edits.h"

namespace anygpu {

struct DriverSourceOptions {
  // Where the driver is installed as the host sees it: "/" or a driver container's root such
  // as /run/nvidia/driver (files found beneath it are mounted without it in the container).
  std::string driver_root = "/";
  // The anygpu binary the hooks run; empty: this process's own executable.
  std::string hook_path;
};

class DriverFilesSource final : public EditSource {
 public:
  explicit DriverFilesSource(DriverSourceOptions options = {}) : options_(std::move(options)) {}
  std::string_view name() const override { return "host driver files"; }
  void add(const EditRequest& request, SelectionEdits& out) const override;

 private:
  DriverSourceOptions options_;
};

// The hooks' argv prefix: a hook whose args start so is anygpu's own.
inline constexpr std::string_view kAnygpuHookArgs[] = {"anygpu", "cdi", "hook"};
bool is_anygpu_hook(const HookEdit& hook);

}  // namespace anygpu
