// The torchrun form of a launch. Options are written with underscores (--nproc_per_node): every
// torchrun accepts them, while the dashed spellings only exist since torch 2.x.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launch/plan.h"

namespace anygpu {

struct TorchrunSettings {
  // Set: `INTERPRETER -m torch.distributed.run`, the agent on the workers' own torch (a
  // `torchrun` of another torch speaks another store protocol; its workers wait forever).
  // Unset: `torchrun` from PATH, which starts .py scripts with its own interpreter.
  std::optional<std::string> interpreter;
  int nproc_per_node = 1;
  std::optional<int> nnodes, node_rank, master_port;
  std::optional<std::string> master_addr;
  bool std_workaround = false;  // add --redirects 1 --tee 1 (torch 1.13 on Python >= 3.11)
};

// python, python3, python3.11 (any directory); not python3-config or ipython.
bool is_python_interpreter(std::string_view path);

// The command's own interpreter when it starts with one (`/venv/bin/python train.py`).
std::optional<std::string> torchrun_interpreter(const std::vector<std::string>& command);

// `torchrun … COMMAND ARGS…` or `INTERPRETER -m torch.distributed.run … COMMAND ARGS…`;
// --no_python unless COMMAND is a .py script.
std::vector<std::string> torchrun_argv(const TorchrunSettings& s,
                                       const std::vector<std::string>& command);

}  // namespace anygpu
