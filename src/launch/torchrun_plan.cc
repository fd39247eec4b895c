#include "launch/torchrun_plan.h"

#include <algorithm>

namespace anygpu {

bool is_python_interpreter(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!name.starts_with("python")) return false;
  std::string_view version = name.substr(6);  // "", "3" or "3.11"
  return std::all_of(version.begin(), version.end(),
                     [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
         !version.starts_with('.') && !version.ends_with('.');
}

std::optional<std::string> torchrun_interpreter(const std::vector<std::string>& command) {
  if (!command.empty() && is_python_interpreter(command.front())) return command.front();
  return std::nullopt;
}

std::vector<std::string> torchrun_argv(const TorchrunSettings& s,
                                       const std::vector<std::string>& command) {
  std::vector<std::string> a;
  if (s.interpreter)
    a = {*s.interpreter, "-m", "torch.distributed.run"};
  else
    a = {"torchrun"};
  a.insert(a.end(), {"--nproc_per_node", std::to_string(s.nproc_per_node)});
  if (s.nnodes) a.insert(a.end(), {"--nnodes", std::to_string(*s.nnodes)});
  if (s.node_rank) a.insert(a.end(), {"--node_rank", std::to_string(*s.node_rank)});
  if (s.master_addr) a.insert(a.end(), {"--master_addr", *s.master_addr});
  if (s.master_port) a.insert(a.end(), {"--master_port", std::to_string(*s.master_port)});
  // torch 1.13's Std.from_str("0") returns None on Python 3.11 (Flag iteration skips 0) and
  // the agent crashes; 1 (stdout to a log file) with --tee 1 (echoed back) avoids that value.
  if (s.std_workaround) a.insert(a.end(), {"--redirects", "1", "--tee", "1"});
  bool python_script =
      !command.empty() && command.front().size() > 3 && command.front().ends_with(".py");
  if (!python_script) a.push_back("--no_python");
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

}  // namespace anygpu
