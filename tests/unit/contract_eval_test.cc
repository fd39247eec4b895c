// `anygpu check` semantics against the fixture hosts and fake Python environments.
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "contract/check.h"
#include "contract/evaluate.h"
#include "contract/spec.h"
#include "host/process_tree.h"
#include "pyenv/python_env.h"
#include "render/json_text.h"
#include "test_support.h"
#include "wheel/framework_check.h"

namespace anygpu {
namespace {

const Inventory& host(const std::string& name) {
  return test::fixture_inventory(name);
}

Verdict eval(const std::string& yaml, const Inventory& inv, const PythonFacts& py = {}) {
  auto spec = parse_contract(yaml, "spec.yaml");
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message);
  if (!spec.ok()) return {};
  return evaluate_contract(*spec, inv, py);
}

const CheckResult& find(const Verdict& v, const std::string& name) {
  for (const auto& c : v.checks)
    if (c.name == name) return c;
  static CheckResult none{"<missing>", CheckStatus::skip, "", "", "", ""};  // with a failure
  ADD_FAILURE() << "no check " << name;
  return none;
}

// A temporary verdict's check comes back by value, so `const auto& c = find(eval(…), …)` holds a
// live copy; a reference into the dead verdict was a use-after-free only ASan saw.
CheckResult find(Verdict&& v, const std::string& name) {
  return find(static_cast<const Verdict&>(v), name);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ContractEval, H100EveryKeyPasses) {
  auto v = eval(R"(
required_features:
  - gpu_compute_capability: sm_80
  - memory_bandwidth_gbps: 2000
  - driver_version_min: 535.54.03
  - vendor: [nvidia, amd]
  - device_count_min: 8
  - memory_gb_min: 80
  - kernel_version_min: "5.15"
)",
                host("h100-8x"));
  ASSERT_EQ(v.checks.size(), 7u);
  EXPECT_TRUE(v.passed());
  auto text = render_check_text("./runtime-spec.yaml", v);
  EXPECT_EQ(
      text,
      "[INFO] Loading runtime contract from ./runtime-spec.yaml\n"
      "[CHECK] GPU compute capability: sm_90 (NVIDIA H100 80GB HBM3) - OK (required: >= sm_80)\n"
      "[CHECK] Memory bandwidth: 3350 GB/s (NVIDIA H100 80GB HBM3) - OK (required: >= 2000 GB/s)\n"
      "[CHECK] Driver version: 550.90.07 - OK (required: >= 535.54.03)\n"
      "[CHECK] Vendor: nvidia (NVIDIA H100 80GB HBM3) - OK (required: one of nvidia, amd)\n"
      "[CHECK] Device count: 8 nvidia devices - OK (required: >= 8)\n"
      "[CHECK] Device memory: 80 GiB (NVIDIA H100 80GB HBM3) - OK (required: >= 80 GB)\n"
      "[CHECK] Kernel version: 6.8.0-45-generic - OK (required: >= 5.15)\n"
      "[SUCCESS] All checks passed. Environment is compatible.\n");
}

TEST(ContractEval, H100Failures) {
  auto v = eval(R"(
required_features:
  - gpu_compute_capability: sm_100
  - memory_bandwidth_gbps: 3500
  - driver_version_min: 550.90.08
  - device_count_min: 9
  - memory_gb_min: 141
  - kernel_version_min: 6.10
)",
                host("h100-8x"));
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.failures(), 6u);
  EXPECT_EQ(find(v, "Memory bandwidth").message, "3350 GB/s < 3500 GB/s required");
  EXPECT_TRUE(has(find(v, "Memory bandwidth").suggestion, "lower memory_bandwidth_gbps"));
  EXPECT_EQ(find(v, "Driver version").message, "550.90.07 < 550.90.08 required");
  EXPECT_TRUE(has(find(v, "GPU compute capability").message, "sm_90 (NVIDIA H100 80GB HBM3)"));
  auto text = render_check_text("spec.yaml", v);
  EXPECT_TRUE(has(text,
                  "[ERROR] Memory bandwidth: 3350 GB/s < 3500 GB/s required\n"
                  "        Suggestion: run on hardware with at least 3500 GB/s"));
  EXPECT_TRUE(has(text, "[FAILED] 6 of 6 checks failed.\n"));
}

TEST(ContractEval, DriverBoundaryLeadingZeros) {
  EXPECT_TRUE(
      eval("required_features:\n  - driver_version_min: 550.90.7\n", host("h100-8x")).passed());
  EXPECT_TRUE(
      eval("required_features:\n  - driver_version_min: 550.90.07\n", host("h100-8x")).passed());
  EXPECT_TRUE(
      eval("required_features:\n  - driver_version_min: 550.090.007\n", host("h100-8x")).passed());
  EXPECT_FALSE(
      eval("required_features:\n  - driver_version_min: 550.91\n", host("h100-8x")).passed());
}

TEST(ContractEval, AmdTargetsAndFamilies) {
  const auto& mi = host("mi300x-8x");
  EXPECT_TRUE(eval("required_features:\n  - gpu_compute_capability: gfx942\n", mi).passed());
  EXPECT_TRUE(eval("required_features:\n  - gpu_compute_capability: gfx94*\n", mi).passed());
  auto v = eval("required_features:\n  - gpu_compute_capability: gfx90a\n", mi);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(find(v, "GPU compute capability").message,
            "gfx942 (AMD Instinct MI300X) does not satisfy gfx90a");
  EXPECT_TRUE(eval("required_features:\n  - driver_version_min: 6.8\n", mi).passed());
}

TEST(ContractEval, MixedVendorListOnBothVendors) {
  const char* spec = "required_features:\n  - gpu_compute_capability: [sm_80, gfx942]\n";
  auto nv = eval(spec, host("h100-8x"));
  auto amd = eval(spec, host("mi300x-8x"));
  EXPECT_TRUE(nv.passed());
  EXPECT_TRUE(amd.passed());
  EXPECT_EQ(find(nv, "GPU compute capability").message, "required: one of >= sm_80, gfx942");
  EXPECT_EQ(find(amd, "GPU compute capability").observed, "gfx942 (AMD Instinct MI300X)");
}

TEST(ContractEval, VendorWithoutEntrySuggestsWhatSatisfies) {
  auto v = eval("required_features:\n  - gpu_compute_capability: [sm_80]\n", host("mi300x-8x"));
  ASSERT_FALSE(v.passed());
  const auto& c = find(v, "GPU compute capability");
  EXPECT_TRUE(has(c.message, "names no AMD")) << c.message;
  EXPECT_TRUE(has(c.suggestion, "an NVIDIA GPU with >= sm_80")) << c.suggestion;
  EXPECT_TRUE(has(c.suggestion, "add gfx942 to gpu_compute_capability")) << c.suggestion;
  auto w =
      eval("required_features:\n  - gpu_compute_capability: [gfx942, gfx90a]\n", host("h100-8x"));
  ASSERT_FALSE(w.passed());
  EXPECT_TRUE(has(find(w, "GPU compute capability").suggestion, "an AMD GPU with gfx942"));
  EXPECT_TRUE(has(find(w, "GPU compute capability").suggestion, "add sm_90"));
}

TEST(ContractEval, WorkstationPicksTheVendorThatFits) {
  const auto& ws = host("workstation-mixed");
  auto v = eval("required_features:\n  - gpu_compute_capability: [sm_80, gfx942]\n", ws);
  EXPECT_TRUE(v.passed());
  EXPECT_TRUE(has(find(v, "GPU compute capability").observed, "sm_89"));
  auto a = eval("required_features:\n  - gpu_compute_capability: [sm_90, gfx1100]\n", ws);
  EXPECT_TRUE(a.passed());
  EXPECT_TRUE(has(find(a, "GPU compute capability").observed, "gfx1100"));
  // 24GB cards: the RX 7900 XTX reports 23.98 GiB and still counts as 24.
  auto m = eval("required_features:\n  - vendor: amd\n  - memory_gb_min: 24\n", ws);
  EXPECT_TRUE(m.passed()) << render_check_text("s", m);
  // amdgpu in-tree has no version: a warning, not a silent pass.
  auto d = eval("required_features:\n  - vendor: amd\n  - driver_version_min: 6.0\n", ws);
  EXPECT_TRUE(d.passed());
  EXPECT_EQ(to_string(find(d, "Driver version").status), "warn");
  EXPECT_TRUE(has(render_check_text("s", d), "[WARN] Driver version: the amdgpu driver"));
}

TEST(ContractEval, VendorKey) {
  auto v = eval("required_features:\n  - vendor: nvidia\n", host("mi300x-8x"));
  ASSERT_FALSE(v.passed());
  EXPECT_TRUE(has(find(v, "Vendor").message, "this host's accelerators are amd"));
  EXPECT_TRUE(has(find(v, "Vendor").suggestion, "add amd to vendor"));
  EXPECT_TRUE(eval("required_features:\n  - vendor: ascend\n", host("ascend-910b-8x")).passed());
}

TEST(ContractEval, NoAcceleratorFailsEveryGpuCheck) {
  auto v = eval(R"(
required_features:
  - gpu_compute_capability: sm_80
  - memory_bandwidth_gbps: 100
  - driver_version_min: 1.0
  - vendor: nvidia
  - device_count_min: 1
  - memory_gb_min: 1
  - kernel_version_min: 6.1
)",
                host("cloud-vm-none"));
  EXPECT_EQ(v.failures(), 6u);
  for (const auto& c : v.checks) {
    if (c.name == "Kernel version") {
      EXPECT_EQ(to_string(c.status), "pass");
      continue;
    }
    EXPECT_EQ(to_string(c.status), "fail") << c.name;
    EXPECT_TRUE(has(c.message, "no accelerator found")) << c.name;
    EXPECT_TRUE(has(c.suggestion, "run on a host with an accelerator")) << c.name;
  }
}

TEST(ContractEval, IntelCountsQualifyingDevices) {
  const auto& in = host("intel-max-arc");
  EXPECT_TRUE(
      eval("required_features:\n  - gpu_compute_capability: xe-hpc\n  - device_count_min: 2\n", in)
          .passed());
  auto v =
      eval("required_features:\n  - gpu_compute_capability: xe-hpc\n  - device_count_min: 3\n", in);
  EXPECT_FALSE(v.passed());
  EXPECT_TRUE(has(find(v, "Device count").observed, "2 of 3 intel devices"));
  for (const auto& c : v.checks) EXPECT_NE(c.name, "Driver version");  // not asked
}

TEST(ContractEval, AscendDriverReleaseCandidates) {
  const auto& as = host("ascend-910b-8x");
  EXPECT_TRUE(eval("required_features:\n  - driver_version_min: 24.1.rc1\n", as).passed());
  EXPECT_TRUE(eval("required_features:\n  - driver_version_min: 23.0.3\n", as).passed());
  EXPECT_FALSE(eval("required_features:\n  - driver_version_min: 24.1.0\n", as).passed());
  EXPECT_TRUE(eval("required_features:\n  - gpu_compute_capability: ascend910b\n", as).passed());
  EXPECT_FALSE(eval("required_features:\n  - kernel_version_min: 5.15\n", as).passed());
}

TEST(ContractEval, UnknownDeviceWarnsWithHowToAdd) {
  Inventory inv;
  Device d;
  d.vendor = "nvidia";
  d.name = "NVIDIA Future GPU";
  d.pci.vendor_id = 0x10de;
  d.pci.device_id = 0x9999;
  inv.devices.push_back(d);
  auto v = eval(
      "required_features:\n  - memory_bandwidth_gbps: 1000\n  - memory_gb_min: 16\n  - "
      "gpu_compute_capability: sm_80\n",
      inv);
  EXPECT_TRUE(v.passed());
  for (const auto& c : v.checks) {
    EXPECT_EQ(to_string(c.status), "warn") << c.name;
    EXPECT_TRUE(has(c.suggestion, "data/devices.yaml")) << c.name << ": " << c.suggestion;
  }
  EXPECT_TRUE(has(find(v, "Memory bandwidth").message, "10de:9999"));
}

// --- Python environments ---------------------------------------------------------------------

struct FakeSite {
  test::TempDir dir;
  std::string site() const { return dir / "site-packages"; }
  void dist(const std::string& name, const std::string& version) {
    test::write_file(site() + "/" + name + "-" + version + ".dist-info/METADATA",
                     "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version +
                         "\nSummary: x\n\nName: not-this\n");
  }
  void torch(const std::string& version, const std::string& cuda, const std::string& hip,
             const std::string& xpu = "None", bool distributed = true) {
    dist("torch", version);
    test::write_file(site() + "/torch/__init__.py", "raise ImportError('never imported')\n");
    test::write_file(site() + "/torch/version.py",
                     "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n"
                     "__version__ = '" +
                         version + "'\ndebug = False\ncuda: Optional[str] = " + cuda +
                         "\ngit_version = 'abc'\nhip: Optional[str] = " + hip +
                         "\nxpu: Optional[str] = " + xpu + "\n");
    if (distributed) test::write_file(site() + "/torch/distributed/__init__.py", "");
  }
  void lib(const std::string& name) { test::write_file(site() + "/torch/lib/" + name, ""); }
  PythonFacts facts() const {
    PythonFacts f;
    f.python = "fake-python";
    f.env = read_site_packages({"", "/nonexistent", site()});
    return f;
  }
  // A `python` that prints the sys.path we want, whatever it is asked.
  std::string python() const {
    auto p = dir / "bin/python";
    test::write_file(p, "#!/bin/sh\nprintf '%s\\n' '' '/usr/lib/python312.zip' '" + site() + "'\n");
    ::chmod(p.c_str(), 0755);
    return p;
  }
};

const char* kTorchSpec = R"(
dependencies:
  - name: pytorch
    version_range: ">=2.1.0,<2.2.0"
    vendor_agnostic_wheel: true
    full_distribution: true
)";

TEST(ContractPython, Cu121OnNvidia) {
  FakeSite s;
  s.torch("2.1.0+cu121", "'12.1'", "None");
  s.dist("nvidia-nccl-cu12", "2.18.1");
  auto v = eval(kTorchSpec, host("h100-8x"), s.facts());
  EXPECT_TRUE(v.passed()) << render_check_text("s", v);
  EXPECT_EQ(find(v, "PyTorch version").message, "matches >=2.1.0,<2.2.0");
  EXPECT_EQ(find(v, "PyTorch build").observed, "2.1.0+cu121 (CUDA 12.1)");
  EXPECT_TRUE(has(find(v, "PyTorch distributed").observed, "nvidia-nccl-cu12 2.18.1"));
  // The same wheel on an AMD host.
  auto a = eval(kTorchSpec, host("mi300x-8x"), s.facts());
  EXPECT_FALSE(a.passed());
  EXPECT_EQ(to_string(find(a, "PyTorch build").status), "fail");
  EXPECT_TRUE(has(find(a, "PyTorch build").message, "Found no NVIDIA driver"));
  // torch 2.1 has no ROCm build with gfx942 (MI300X) kernels: the advice says so and names
  // what `anygpu wheel` chooses instead, never a ROCm 2.1 build that does not exist.
  const auto& advice = find(a, "PyTorch build").suggestion;
  EXPECT_TRUE(has(advice, "no ROCm build of torch 2.1 targets gfx942")) << advice;
  EXPECT_TRUE(has(advice, "pip install torch==2.1.0 --index-url")) << advice;
  // The spec's range holds the advice: a torch outside <2.2.0 is never suggested, even where a
  // newer release has the ROCm build these GPUs need.
  FakeSite newer;
  newer.torch("2.5.1+cu121", "'12.1'", "None");
  auto bounded = find(eval(kTorchSpec, host("mi300x-8x"), newer.facts()), "PyTorch build");
  EXPECT_TRUE(has(bounded.suggestion,
                  "pip install torch==2.1.2 --index-url https://download.pytorch.org/whl/cpu"))
      << bounded.suggestion;
  EXPECT_FALSE(has(bounded.suggestion, "2.5.1")) << bounded.suggestion;
  // Without an upper bound the installed release is kept, in the build the devices need.
  std::string open_spec = kTorchSpec;
  open_spec.replace(open_spec.find(",<2.2.0"), 7, "");
  auto rocm = find(eval(open_spec, host("mi300x-8x"), newer.facts()), "PyTorch build");
  EXPECT_TRUE(has(rocm.suggestion,
                  "install the ROCm (+rocm…) build: pip install torch==2.5.1 "
                  "--index-url https://download.pytorch.org/whl/rocm"))
      << rocm.suggestion;
}

TEST(ContractPython, VersionBoundaries) {
  FakeSite s;
  s.torch("2.1.1+cu121", "'12.1'", "None");
  auto v = eval("dependencies:\n  - name: torch\n    version_range: '<2.1.1'\n", host("h100-8x"),
                s.facts());
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(find(v, "PyTorch version").message, "2.1.1+cu121 does not match <2.1.1");
  // The one recommendation inside the range: the newest patch below 2.1.1, in the CUDA build.
  EXPECT_TRUE(has(find(v, "PyTorch version").suggestion,
                  "pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121"))
      << find(v, "PyTorch version").suggestion;
  FakeSite t;
  t.torch("2.1.0+cu121", "'12.1'", "None");
  EXPECT_TRUE(eval("dependencies:\n  - name: torch\n    version_range: '<2.1.1'\n", host("h100-8x"),
                   t.facts())
                  .passed());
  EXPECT_TRUE(eval("dependencies:\n  - name: torch\n    version_range: '==2.1.*'\n",
                   host("h100-8x"), t.facts())
                  .passed());
  EXPECT_TRUE(eval("dependencies:\n  - name: torch\n    version_range: '~=2.0'\n", host("h100-8x"),
                   t.facts())
                  .passed());
  EXPECT_FALSE(eval("dependencies:\n  - name: torch\n    version_range: '!=2.1.0'\n",
                    host("h100-8x"), t.facts())
                   .passed());
}

TEST(ContractPython, RocmBuild) {
  FakeSite s;
  s.torch("2.1.2+rocm6.1", "None", "'6.1.40091-a8dbc0c19'");
  s.lib("librccl.so.1");
  auto v = eval(kTorchSpec, host("mi300x-8x"), s.facts());
  EXPECT_TRUE(v.passed()) << render_check_text("s", v);
  EXPECT_TRUE(has(find(v, "PyTorch distributed").observed, "RCCL"));
  auto n = eval(kTorchSpec, host("h100-8x"), s.facts());
  EXPECT_EQ(to_string(find(n, "PyTorch build").status), "fail");
  EXPECT_TRUE(has(find(n, "PyTorch build").message, "No HIP GPUs"));
  EXPECT_TRUE(has(find(n, "PyTorch build").suggestion,
                  "pip install torch==2.1.2 --index-url "
                  "https://download.pytorch.org/whl/cu1"))
      << find(n, "PyTorch build").suggestion;
  // Without librccl the distribution is incomplete.
  FakeSite bare;
  bare.torch("2.1.2+rocm6.1", "None", "'6.1'");
  EXPECT_EQ(
      to_string(
          find(eval(kTorchSpec, host("mi300x-8x"), bare.facts()), "PyTorch distributed").status),
      "fail");
}

TEST(ContractPython, CpuBuildWarnsOnGpuHost) {
  FakeSite s;
  s.torch("2.1.0+cpu", "None", "None");
  auto v = eval(kTorchSpec, host("h100-8x"), s.facts());
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(to_string(find(v, "PyTorch build").status), "warn");
  // The suggestion is `anygpu wheel`'s choice for this host and the installed release.
  EXPECT_TRUE(has(find(v, "PyTorch build").suggestion,
                  "pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121"))
      << find(v, "PyTorch build").suggestion;
  auto none = eval(kTorchSpec, host("cloud-vm-none"), s.facts());
  EXPECT_EQ(to_string(find(none, "PyTorch build").status), "pass");
  EXPECT_EQ(to_string(find(none, "PyTorch distributed").status), "pass");
  // Ascend: a CPU torch plus torch_npu is the right build.
  auto as = eval(kTorchSpec, host("ascend-910b-8x"), s.facts());
  EXPECT_EQ(to_string(find(as, "PyTorch build").status), "warn");
  s.dist("torch_npu", "2.1.0.post6");
  EXPECT_EQ(
      to_string(find(eval(kTorchSpec, host("ascend-910b-8x"), s.facts()), "PyTorch build").status),
      "pass");
}

TEST(ContractPython, XpuBuild) {
  FakeSite s;
  s.torch("2.1.0+xpu", "None", "None", "'20240200'");
  auto v = eval(kTorchSpec, host("intel-max-arc"), s.facts());
  EXPECT_EQ(to_string(find(v, "PyTorch build").status), "pass");
  EXPECT_EQ(to_string(find(v, "PyTorch distributed").status), "warn");  // no oneCCL next to it
  EXPECT_EQ(to_string(find(eval(kTorchSpec, host("h100-8x"), s.facts()), "PyTorch build").status),
            "fail");
}

TEST(ContractPython, MissingDistributedAndNccl) {
  FakeSite s;
  s.torch("2.1.0+cu121", "'12.1'", "None", "None", /*distributed=*/false);
  auto v = eval(kTorchSpec, host("h100-8x"), s.facts());
  EXPECT_EQ(to_string(find(v, "PyTorch distributed").status), "fail");
  FakeSite t;
  t.torch("2.1.0+cu121", "'12.1'", "None");
  auto w = eval(kTorchSpec, host("h100-8x"), t.facts());
  EXPECT_EQ(to_string(find(w, "PyTorch distributed").status), "fail");
  EXPECT_TRUE(has(find(w, "PyTorch distributed").suggestion, "nvidia-nccl-cu12"));
  t.lib("libnccl.so.2");
  EXPECT_EQ(
      to_string(find(eval(kTorchSpec, host("h100-8x"), t.facts()), "PyTorch distributed").status),
      "pass");
}

TEST(ContractPython, CudaBuildNeedsDriverFloor) {
  FakeSite s;
  s.torch("2.9.0+cu130", "'13.0'", "None");
  auto v = eval("dependencies:\n  - name: torch\n    vendor_agnostic_wheel: true\n",
                host("h100-8x"), s.facts());
  EXPECT_EQ(to_string(find(v, "PyTorch build").status), "fail");
  EXPECT_TRUE(has(find(v, "PyTorch build").message, "needs driver >= 580"))
      << find(v, "PyTorch build").message;
}

// `check`'s "PyTorch build" and doctor's torch.* findings are one judge: over every fixture host
// and a spread of builds (PyTorch's CUDA, ROCm, XPU and CPU wheels, CPU torch with a vendor's
// plugin or Intel's extension, a vendor's own build), check fails exactly where doctor reports
// an error, warns where doctor warns, and passes otherwise.
TEST(ContractPython, CheckAndDoctorJudgeEveryBuildAlike) {
  struct Build {
    std::string version, cuda, hip, xpu, plugin, plugin_version;
  };
  const Build builds[] = {
      {"2.5.1+cu121", "'12.1'", "None", "None", "", ""},
      {"2.9.0+cu130", "'13.0'", "None", "None", "", ""},
      {"2.4.1+rocm6.1", "None", "'6.1.40091-a8dbc0c19'", "None", "", ""},
      {"2.1.2+rocm5.6", "None", "'5.6.31061-8c743ae5d'", "None", "", ""},
      {"2.5.1+xpu", "None", "None", "'20240100'", "", ""},
      {"2.5.1+cpu", "None", "None", "None", "", ""},
      {"2.5.1+cpu", "None", "None", "None", "torch_npu", "2.5.1"},
      {"2.1.0.post2+cxx11.abi", "None", "None", "None", "intel_extension_for_pytorch",
       "2.1.30+xpu"},
      {"2.1.0+das.opt1.dtk24.04", "None", "'5.7.24164'", "None", "", ""},
  };
  const char* hosts[] = {"h100-8x",           "mi300x-8x",           "intel-max-arc",
                         "ascend-910b-8x",    "hygon-dcu",           "thead-ppu-4x",
                         "laptop-hybrid",     "workstation-mixed",   "nvidia-open-l40s",
                         "nvidia-grid-guest", "nvidia-open-aarch64", "cloud-vm-none"};
  std::map<CheckStatus, int> seen;
  for (const auto& b : builds)
    for (const char* name : hosts) {
      FakeSite s;
      s.torch(b.version, b.cuda, b.hip, b.xpu);
      if (!b.plugin.empty()) s.dist(b.plugin, b.plugin_version);
      auto facts = s.facts();
      auto v = eval("dependencies:\n  - name: torch\n    vendor_agnostic_wheel: true\n", host(name),
                    facts);
      const auto& r = find(v, "PyTorch build");
      auto doctor = framework_build_findings(*facts.env, host(name), builtin_wheel_data());
      auto expect = CheckStatus::pass;
      for (const auto& f : doctor)
        if (f.severity == Severity::error)
          expect = CheckStatus::fail;
        else if (f.severity == Severity::warning && expect == CheckStatus::pass)
          expect = CheckStatus::warn;
      EXPECT_EQ(to_string(r.status), to_string(expect))
          << b.version << " " << b.plugin << " on " << name << ": check says " << r.message
          << "; doctor says " << (doctor.empty() ? std::string("nothing") : doctor[0].message);
      ++seen[r.status];
    }
  // The spread reaches every verdict.
  EXPECT_GT(seen[CheckStatus::pass], 0);
  EXPECT_GT(seen[CheckStatus::warn], 0);
  EXPECT_GT(seen[CheckStatus::fail], 0);
}

// The registry and the wheel table decide, not vendor names in code: Intel's extension gives a
// torch without an xpu build the devices; Hygon's own DTK build passes where PyTorch's ROCm
// wheel fails; an arch the wheel carries no kernels for fails check as it fails doctor.
TEST(ContractPython, ExtensionsVendorBuildsAndArchesByTheTables) {
  const char* spec = "dependencies:\n  - name: torch\n    vendor_agnostic_wheel: true\n";
  FakeSite ipex;
  ipex.torch("2.1.0.post2+cxx11.abi", "None", "None");
  EXPECT_EQ(
      to_string(find(eval(spec, host("intel-max-arc"), ipex.facts()), "PyTorch build").status),
      "warn");
  ipex.dist("intel_extension_for_pytorch", "2.1.30+xpu");
  const auto& with = find(eval(spec, host("intel-max-arc"), ipex.facts()), "PyTorch build");
  EXPECT_EQ(to_string(with.status), "pass");
  EXPECT_TRUE(has(with.observed, "+ intel-extension-for-pytorch")) << with.observed;

  FakeSite dtk;
  dtk.torch("2.1.0+das.opt1.dtk24.04", "None", "'5.7.24164'");
  EXPECT_EQ(to_string(find(eval(spec, host("hygon-dcu"), dtk.facts()), "PyTorch build").status),
            "pass");
  FakeSite rocm;
  rocm.torch("2.4.1+rocm6.1", "None", "'6.1.40091-a8dbc0c19'");
  const auto& wrong = find(eval(spec, host("hygon-dcu"), rocm.facts()), "PyTorch build");
  EXPECT_EQ(to_string(wrong.status), "fail");
  EXPECT_TRUE(has(wrong.message, "Hygon devices need Hygon's own ROCm build")) << wrong.message;

  FakeSite old;  // torch 2.1 ROCm 5.6 builds predate gfx942 (MI300X)
  old.torch("2.1.2+rocm5.6", "None", "'5.6.31061-8c743ae5d'");
  const auto& arch = find(eval(spec, host("mi300x-8x"), old.facts()), "PyTorch build");
  EXPECT_EQ(to_string(arch.status), "fail");
  EXPECT_TRUE(has(arch.message, "no kernels for gfx942")) << arch.message;
}

TEST(ContractPython, NotInstalledAndOtherPackages) {
  FakeSite s;
  s.dist("numpy", "1.26.4");
  auto v = eval("dependencies:\n  - name: torch\n  - name: NumPy\n    version_range: '>=1.24'\n",
                host("h100-8x"), s.facts());
  EXPECT_EQ(to_string(find(v, "PyTorch version").status), "fail");
  EXPECT_TRUE(has(find(v, "PyTorch version").message, "not installed"));
  EXPECT_EQ(to_string(find(v, "NumPy version").status), "pass");
  PythonFacts broken;
  broken.python = "nope";
  broken.error = "--python nope: not found";
  auto b = eval("dependencies:\n  - name: torch\n", host("h100-8x"), broken);
  EXPECT_TRUE(has(find(b, "PyTorch version").message, "cannot read the Python environment"));
}

TEST(ContractPython, ParsersDirectly) {
  auto b = parse_torch_version_py("__version__ = '2.3.0+cu121'\ncuda = \"12.1\"\nhip = None\n");
  EXPECT_EQ(b.version, "2.3.0+cu121");
  EXPECT_EQ(b.cuda, "12.1");
  EXPECT_FALSE(b.hip);
  EXPECT_EQ(b.kind(), "cuda");
  EXPECT_EQ(parse_torch_version_py("__version__ = '2.3.0+rocm6.0'\n").kind(), "rocm");
  EXPECT_EQ(parse_torch_version_py("__version__ = '2.3.0'\n").kind(), "cpu");
  auto m = parse_metadata("Metadata-Version: 2.1\nName: Foo_Bar\nVersion: 1.0\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "foo-bar");
  EXPECT_FALSE(parse_metadata("Name: x\n"));
}

TEST(ContractPython, FakeInterpreterAndTimeout) {
  FakeSite s;
  s.torch("2.1.0+cu121", "'12.1'", "None");
  auto env = read_python_env(s.python());
  ASSERT_TRUE(env.ok()) << env.error().message;
  ASSERT_TRUE(env->torch);
  EXPECT_EQ(env->torch->version, "2.1.0+cu121");
  EXPECT_EQ(env->sys_path.size(), 3u);

  auto missing = read_python_env("/nonexistent/python3");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(has(missing.error().message, "/nonexistent/python3"));

  auto slow = s.dir / "bin/slow";
  test::write_file(slow, "#!/bin/sh\nexec sleep 10\n");
  ::chmod(slow.c_str(), 0755);
  auto start = std::chrono::steady_clock::now();
  auto t = query_sys_path(slow, std::chrono::milliseconds(300));
  EXPECT_FALSE(t.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  auto failing = s.dir / "bin/failing";
  test::write_file(failing, "#!/bin/sh\nexit 3\n");
  ::chmod(failing.c_str(), 0755);
  EXPECT_FALSE(query_sys_path(failing, std::chrono::seconds(5)).ok());
}

TEST(ContractPython, AnInterpreterThatNeverAnswersEndsWithEverythingItStarted) {
  // A wrapper that starts two helpers, one in a session of its own, and never answers.
  test::TempDir dir;
  auto script = dir / "python";
  test::write_file(script, "#!/bin/sh\nsleep 300 &\necho $! > " + dir / "a.pid" +
                               "\nsetsid sleep 300 &\necho $! > " + dir / "b.pid" +
                               "\nsleep 300\n");
  ::chmod(script.c_str(), 0755);
  auto r = query_sys_path(script, std::chrono::milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error().message, "no answer within 1000 ms")) << r.error().message;
  for (const char* name : {"a.pid", "b.pid"}) {
    std::ifstream in(dir / name);
    long pid = 0;
    ASSERT_TRUE(in >> pid) << name;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    auto st = parse_proc_stat(line);
    // Right when the query returns, not eventually.
    EXPECT_TRUE(!st || st->state == 'Z') << name << " " << pid << " outlived the query: " << line;
    if (st && st->state != 'Z') ::kill(static_cast<pid_t>(pid), SIGKILL);
  }
}

TEST(ContractPython, CheckContractFileEndToEnd) {
  FakeSite s;
  s.torch("2.1.0+cu121", "'12.1'", "None");
  s.dist("nvidia-nccl-cu12", "2.18.1");
  auto spec = s.dir / "runtime-spec.yaml";
  test::write_file(
      spec, std::string("required_features:\n  - gpu_compute_capability: sm_80\n") + kTorchSpec);
  CheckOptions o;
  o.python = s.python();
  auto v = check_contract_file(spec, host("h100-8x"), o);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_TRUE(v->passed()) << render_check_text(spec, *v);
  auto j = nlohmann::json::parse(dump_json(render_check_json(*v)));
  EXPECT_EQ(j["schema"], "anygpu.check/v1");
  EXPECT_EQ(j["passed"], true);
  ASSERT_EQ(j["checks"].size(), 4u);
  for (const auto& c : j["checks"]) {
    for (const char* k : {"name", "status", "observed", "required", "message", "suggestion"})
      EXPECT_TRUE(c.contains(k)) << k;
  }
  EXPECT_TRUE(j["checks"][0]["suggestion"].is_null());
  auto bad = check_contract_file(s.dir / "nope.yaml", host("h100-8x"), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::bad_input);
}

TEST(ContractPython, DebianSystemTorchIsACpuBuild) {
  struct stat st {};
  if (::stat("/usr/bin/python3", &st) != 0 ||
      ::stat("/usr/lib/python3/dist-packages/torch/version.py", &st) != 0)
    GTEST_SKIP() << "no Debian python3-torch here";
  auto env = read_python_env("/usr/bin/python3");
  ASSERT_TRUE(env.ok()) << env.error().message;
  ASSERT_TRUE(env->torch);
  EXPECT_EQ(env->torch->kind(), "cpu");
  EXPECT_TRUE(pep440::Version::parse(env->torch->version));
  PythonFacts f;
  f.python = "/usr/bin/python3";
  f.env = *env;
  auto v = eval(kTorchSpec, host("h100-8x"), f);
  EXPECT_EQ(to_string(find(v, "PyTorch build").status), "warn");  // a CPU build on a GPU host
}

}  // namespace
}  // namespace anygpu
