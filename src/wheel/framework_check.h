// The installed framework build (torch wheel) against the host's devices: vendor, CUDA vs
// driver, GPU arch vs the wheel's arch list, the vendor's plugin. One judge for doctor's torch.*
// findings and `check`'s "PyTorch build", fed by the registry's torch.build and the wheel
// table. Read from package files; torch is never imported.
#pragma once

#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/finding.h"
#include "model/inventory.h"
#include "pyenv/python_env.h"
#include "registry/wheel_data.h"
#include "util/pep440.h"

namespace anygpu {

// "CUDA 12.1", "ROCm/HIP 6.1.40091-a8dbc0c19", "XPU", "CPU".
std::string torch_build_words(const TorchBuild& t);

struct TorchBuildJudgement {
  // The build the judged devices need: cuda, rocm or xpu (PyTorch's own), "plugin" (a CPU torch
  // and the vendor's plugin), "vendor" (the vendor's own build), "cpu" (no accelerator).
  std::string need;
  std::string with;  // the wheel table's plugin or extension found serving them ("torch-npu")
  std::vector<Finding> findings;  // empty: the build fits

  const Finding* worst() const;  // the most severe finding, the first of equals; null: none
};

// The installed torch `env.torch` (required) for `vendor`'s `devices` ("" or "none": a host
// without accelerators); the advice is the one recommendation (wheel/recommend.h) for that
// vendor, inside `range` when a contract bounds torch.
TorchBuildJudgement judge_torch_build(const PythonEnv& env, const Inventory& inventory,
                                      const WheelData& data, const std::string& vendor,
                                      const std::vector<const Device*>& devices,
                                      const std::optional<pep440::SpecifierSet>& range = {});

// The vendor doctor judges the build for: the first on the host that the build serves (its
// kind, or its plugin installed), else the primary vendor; "" without accelerators.
std::string judged_vendor(const PythonEnv& env, const Inventory& inventory, const WheelData& data);

// Doctor's findings: the judgement for judged_vendor(). `python` is the interpreter whose
// site-packages are inspected.
std::vector<Finding> framework_build_findings(const HostRoot& host, const Inventory& inventory,
                                              const std::string& python);

// The same for an environment already read (tests build one from a directory).
std::vector<Finding> framework_build_findings(const PythonEnv& env, const Inventory& inventory,
                                              const WheelData& data);

}  // namespace anygpu
