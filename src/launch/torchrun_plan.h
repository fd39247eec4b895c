// The torchrun form of a launch. Options are written with underscores (--nproc_per_node): every
// torchrun accepts them, while the dashed spellings only exist since torch 2.x.
#pragma once

#include <string>
#include <vector>

#include "launch/plan.h"

namespace anygpu {

struct TorchrunSettings {
  int nproc_per_node = 1;
  std::optional<int> nnodes, node_rank, master_port;
  std::optional<std::string> master_addr;
  bool std_workaround = false;  // add --redirects 1 --tee 1 (torch 1.13 on Python >= 3.11)
};

// `torchrun … COMMAND ARGS…`; --no_python unless COMMAND is a .py script.
std::vector<std::string> torchrun_argv(const TorchrunSettings& s,
                                       const std::vector<std::string>& command);

}  // namespace anygpu
