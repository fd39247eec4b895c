// What a Python environment has installed, read from its files without importing anything:
// the interpreter is asked only for sys.path; then site-packages are read directly
// (`*.dist-info/METADATA`, `*.egg-info/PKG-INFO`, `torch/version.py`).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace anygpu {

struct InstalledDist {
  std::string name;     // normalised (PEP 503)
  std::string version;  // as recorded
  std::string path;     // the metadata directory
};

struct TorchBuild {
  std::string version;                       // __version__, e.g. "2.3.0+cu121"
  std::optional<std::string> cuda;           // "12.1"
  std::optional<std::string> hip;            // "6.1.40091-a8dbc0c19"
  std::optional<std::string> xpu;            // "20240100" (torch >= 2.5 xpu builds)
  std::string dir;                           // the torch package directory
  bool has_distributed = false;              // torch/distributed/ exists
  std::vector<std::string> collective_libs;  // libnccl*/librccl*/libccl* found for it

  // cuda | rocm | xpu | cpu, from version.py, else from the local label (+cu121, +rocm6.1).
  std::string kind() const;
};

struct PythonEnv {
  std::string python;
  std::vector<std::string> sys_path;
  std::vector<InstalledDist> dists;  // first occurrence on sys.path wins
  std::optional<TorchBuild> torch;

  const InstalledDist* dist(std::string_view normalised_name) const;
};

// Runs `python -c 'import sys; print("\n".join(sys.path))'` (host/spawn.h: no shell, stdin
// and stderr on /dev/null, PATH lookup) and returns the entries. At `timeout` the interpreter
// ends with its process group and every descendant. Errors: not found, timeout, exit status.
Result<std::vector<std::string>> query_sys_path(const std::string& python,
                                                std::chrono::milliseconds timeout);

// Reads the installed distributions and torch's build from the given directories.
PythonEnv read_site_packages(const std::vector<std::string>& sys_path);

// Both steps.
Result<PythonEnv> read_python_env(const std::string& python,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Parses the assignments of torch/version.py (`cuda = '12.1'`, `hip: Optional[str] = None`).
TorchBuild parse_torch_version_py(std::string_view text);
// Name and Version of a METADATA / PKG-INFO header block.
std::optional<InstalledDist> parse_metadata(std::string_view text);

}  // namespace anygpu
