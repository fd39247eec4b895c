// The I/O half of planning: what exists on the host (beneath --root), which engines are on
// PATH, CDI specs, /etc/group ids, and the installed torchrun's quirks.
#pragma once

#include <string>
#include <vector>

#include "host/host_root.h"
#include "launch/plan.h"

namespace anygpu {

// Directories of PATH holding an executable `name`, first match; nullopt when none.
std::optional<std::string> find_on_path(const std::string& name, const Environment& environment);

// Only what the options need is gathered: nothing container-related for a native launch, no
// Python probe without torchrun (it costs an interpreter start).
HostFacts gather_host_facts(const HostRoot& host, const Selection& selection,
                            const LaunchOptions& options, const Environment& environment,
                            std::vector<std::string>& notes,
                            const Registry& registry = Registry::builtin());

// torch < 2.0 on Python >= 3.11 (the torchrun Std enum crash), from the torchrun script's
// interpreter and its site-packages, without importing torch.
bool torchrun_needs_std_workaround(const std::string& torchrun_path,
                                   std::vector<std::string>& notes);
// The same for an interpreter that runs torch.distributed.run itself.
bool python_needs_std_workaround(const std::string& interpreter, std::vector<std::string>& notes);

}  // namespace anygpu
