// The installed torch build against the host, read from fake site-packages trees (the files a
// real wheel installs: torch/version.py and torch-*.dist-info/METADATA); torch is never imported.
#include <gtest/gtest.h>

#include "test_support.h"
#include "wheel/framework_check.h"

namespace anygpu {
namespace {

using test::TempDir;

// A site-packages directory with the given torch build; returns its environment.
PythonEnv site_packages(const TempDir& tmp, const std::string& version, const std::string& cuda,
                        const std::string& hip = "None", const std::string& xpu = "None") {
  auto sp = tmp / "site-packages";
  auto lit = [](const std::string& v) { return v == "None" ? v : "'" + v + "'"; };
  test::write_file(sp + "/torch/__init__.py", "");
  test::write_file(sp + "/torch/version.py",
                   "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
                   "'git_version', 'hip', 'xpu']\n__version__ = '" +
                       version + "'\ndebug = False\ncuda: Optional[str] = " + lit(cuda) +
                       "\ngit_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip: "
                       "Optional[str] = " +
                       lit(hip) + "\nxpu: Optional[str] = " + lit(xpu) + "\n");
  test::write_file(sp + "/torch-" + version + ".dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: torch\nVersion: " + version +
                       "\nSummary: Tensors and Dynamic neural networks in Python\n\n");
  return read_site_packages({sp});
}

std::vector<std::string> codes(const std::vector<Finding>& f) {
  std::vector<std::string> out;
  for (const auto& x : f) out.push_back(x.code);
  return out;
}

const WheelData& data() {
  return builtin_wheel_data();
}

TEST(FrameworkBuild, MatchingCudaBuildHasNoFindings) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.5.1+cu121", "12.1");
  ASSERT_TRUE(env.torch);
  EXPECT_TRUE(framework_build_findings(env, test::fixture_inventory("h100-8x"), data()).empty());
}

TEST(FrameworkBuild, Cu130OnADriverForCuda124) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.9.0+cu130", "13.0");
  auto f = framework_build_findings(env, test::fixture_inventory("h100-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.cuda-too-new"});
  EXPECT_EQ(f[0].severity, Severity::error);
  EXPECT_EQ(f[0].message, "cu130 wheel on a driver that supports CUDA 12.4");
  EXPECT_NE(f[0].evidence.find("needs driver >= 580"), std::string::npos) << f[0].evidence;
  EXPECT_NE(f[0].action.find(
                "pip install torch==2.9.0 --index-url https://download.pytorch.org/whl/cu128"),
            std::string::npos)
      << f[0].action;
}

TEST(FrameworkBuild, CudaBuildOnAnAmdHost) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.5.1+cu121", "12.1");
  auto f = framework_build_findings(env, test::fixture_inventory("mi300x-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.vendor-mismatch"});
  EXPECT_EQ(f[0].message, "torch 2.5.1+cu121 is a CUDA build, which does not run on AMD devices");
  EXPECT_NE(f[0].evidence.find("Found no NVIDIA driver"), std::string::npos) << f[0].evidence;
  EXPECT_NE(f[0].action.find("whl/rocm6.2"), std::string::npos) << f[0].action;
}

TEST(FrameworkBuild, CudaBuildOnAnIntelHost) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.5.1+cu121", "12.1");
  auto f = framework_build_findings(env, test::fixture_inventory("intel-max-arc"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.vendor-mismatch"});
  EXPECT_NE(f[0].action.find("whl/xpu"), std::string::npos) << f[0].action;
}

TEST(FrameworkBuild, RocmBuildOnNvidiaAndOnItsOwnHost) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.4.1+rocm6.1", "None", "6.1.40091-a8dbc0c19");
  auto f = framework_build_findings(env, test::fixture_inventory("h100-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.vendor-mismatch"});
  EXPECT_NE(f[0].message.find("ROCm build"), std::string::npos);
  EXPECT_TRUE(framework_build_findings(env, test::fixture_inventory("mi300x-8x"), data()).empty());
}

// The vendors a build kind serves come from the registry's torch.build: Hygon's DTK torch is a
// ROCm build of its own, so a +rocm wheel from PyTorch's index on a Hygon host is the wrong one,
// and the finding names the vendor's own build.
TEST(FrameworkBuild, RocmWheelOnAHostWhoseVendorHasItsOwnRocmBuild) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.4.1+rocm6.1", "None", "6.1.40091-a8dbc0c19");
  auto f = framework_build_findings(env, test::fixture_inventory("hygon-dcu"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.vendor-mismatch"});
  EXPECT_EQ(f[0].message,
            "torch 2.4.1+rocm6.1 is a ROCm build, which does not run on Hygon devices");
  EXPECT_NE(f[0].evidence.find("Hygon devices need Hygon's own ROCm build of torch"),
            std::string::npos)
      << f[0].evidence;
}

// A CUDA build whose version.py carries no toolkit: the wheel table's variant gives it
// (cu130 is CUDA 13.0), so the driver floor still applies.
TEST(FrameworkBuild, CudaVersionFromTheWheelTableWhenTorchOmitsIt) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.9.0+cu130", "None");
  auto f = framework_build_findings(env, test::fixture_inventory("h100-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.cuda-too-new"});
  EXPECT_NE(f[0].evidence.find("built with CUDA 13.0"), std::string::npos) << f[0].evidence;
}

TEST(FrameworkBuild, GpuArchNotInTheWheelsList) {
  TempDir tmp;
  auto host = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x"), host);
  for (const char* bus : {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                          "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"})
    test::write_file(host + "/sys/bus/pci/devices/" + bus + "/device", "0x2b85\n");  // RTX 5090
  auto inv = test::probe_root(host);
  ASSERT_EQ(inv.devices.at(0).arch.value_or(""), "sm_120");
  auto env = site_packages(tmp, "2.6.0+cu126", "12.6");
  auto f = framework_build_findings(env, inv, data());
  // Driver 550 is below CUDA 12.6's own 560.28.03: an info finding besides the arch error.
  ASSERT_EQ(codes(f),
            (std::vector<std::string>{"torch.cuda-minor-compat", "torch.arch-unsupported"}));
  EXPECT_EQ(f[0].severity, Severity::info);
  EXPECT_NE(f[1].message.find("no kernels for sm_120"), std::string::npos) << f[1].message;
  EXPECT_NE(f[1].evidence.find("no kernel image is available"), std::string::npos);
}

TEST(FrameworkBuild, RocmBuildWithoutTheGfxTarget) {
  TempDir tmp;  // torch 2.1 ROCm 5.6 builds predate gfx942 (MI300X)
  auto env = site_packages(tmp, "2.1.2+rocm5.6", "None", "5.6.31061-8c743ae5d");
  auto f = framework_build_findings(env, test::fixture_inventory("mi300x-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.arch-unsupported"});
  EXPECT_NE(f[0].message.find("gfx942"), std::string::npos);
}

TEST(FrameworkBuild, CpuBuildOnAGpuHostAndOnACpuHost) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.5.1+cpu", "None");
  auto f = framework_build_findings(env, test::fixture_inventory("h100-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.cpu-build"});
  EXPECT_EQ(f[0].severity, Severity::warning);
  EXPECT_TRUE(
      framework_build_findings(env, test::fixture_inventory("cloud-vm-none"), data()).empty());
  // Under a vendor plugin the CPU build of torch is the right one, with the plugin
  // (the wheel table's package, torch-npu) installed.
  auto as = framework_build_findings(env, test::fixture_inventory("ascend-910b-8x"), data());
  ASSERT_EQ(codes(as), std::vector<std::string>{"torch.plugin-missing"});
  EXPECT_NE(as[0].action.find("torch-npu"), std::string::npos) << as[0].action;
  // torch_npu 2.5.1 pairs with torch 2.5.1 on CANN 8.1.RC1; the host's CANN is 8.0.RC2.
  test::write_file(tmp / "site-packages/torch_npu-2.5.1.dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.5.1\n\n");
  auto with = read_site_packages({tmp / "site-packages"});
  auto mismatch = framework_build_findings(with, test::fixture_inventory("ascend-910b-8x"), data());
  ASSERT_EQ(codes(mismatch), std::vector<std::string>{"torch.plugin-cann-mismatch"});
  EXPECT_EQ(mismatch[0].severity, Severity::error);
  EXPECT_EQ(mismatch[0].message, "torch-npu 2.5.1 pairs with CANN 8.1.RC1, not CANN 8.0.RC2");
  EXPECT_NE(mismatch[0].evidence.find("ascend_toolkit_install.info"), std::string::npos)
      << mismatch[0].evidence;
  EXPECT_NE(mismatch[0].action.find("install CANN 8.1.RC1"), std::string::npos)
      << mismatch[0].action;
}

// torch_npu against the table's pairs: the torch it was built for and the host's CANN.
TEST(FrameworkBuild, TorchNpuPairing) {
  auto inv = test::fixture_inventory("ascend-910b-8x");  // CANN 8.0.RC2
  auto with_npu = [](const TempDir& tmp, const std::string& torch, const std::string& npu) {
    site_packages(tmp, torch, "None");
    test::write_file(tmp / ("site-packages/torch_npu-" + npu + ".dist-info/METADATA"),
                     "Metadata-Version: 2.1\nName: torch-npu\nVersion: " + npu + "\n\n");
    return read_site_packages({tmp / "site-packages"});
  };
  TempDir a, b, c, d, e;
  // 2.3.1 on CANN 8.0.RC2 is a pair of the table.
  EXPECT_TRUE(framework_build_findings(with_npu(a, "2.3.1+cpu", "2.3.1"), inv, data()).empty());
  // 2.3.1.post4 pairs with CANN 8.0.0: the fix is the table's torch_npu for 2.3.1 on 8.0.RC2.
  auto f = framework_build_findings(with_npu(b, "2.3.1+cpu", "2.3.1.post4"), inv, data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.plugin-cann-mismatch"});
  EXPECT_NE(f[0].action.find("install torch-npu==2.3.1 (it pairs with torch 2.3.1 on CANN "
                             "8.0.RC2)"),
            std::string::npos)
      << f[0].action;
  // Built for another torch.
  f = framework_build_findings(with_npu(c, "2.12.0", "2.8.0.post2"), inv, data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.plugin-torch-mismatch"});
  EXPECT_EQ(f[0].severity, Severity::error);
  // Not in the table: unknown, a warning.
  f = framework_build_findings(with_npu(d, "2.13.0", "2.13.0"), inv, data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.plugin-unpaired"});
  EXPECT_EQ(f[0].severity, Severity::warning);
  // A host whose CANN is not known: a warning, not ok.
  auto no_cann = inv;
  no_cann.runtimes.clear();
  f = framework_build_findings(with_npu(e, "2.3.1+cpu", "2.3.1"), no_cann, data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.plugin-cann-unknown"});
  EXPECT_EQ(f[0].severity, Severity::warning);
}

TEST(FrameworkBuild, XpuBuildOffIntel) {
  TempDir tmp;
  auto env = site_packages(tmp, "2.5.1+xpu", "None", "None", "20240100");
  EXPECT_TRUE(
      framework_build_findings(env, test::fixture_inventory("intel-max-arc"), data()).empty());
  auto f = framework_build_findings(env, test::fixture_inventory("h100-8x"), data());
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.vendor-mismatch"});
}

TEST(FrameworkBuild, NoTorchNoFindings) {
  TempDir tmp;
  test::write_file(tmp / "site-packages/numpy-1.26.4.dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: numpy\nVersion: 1.26.4\n\n");
  auto env = read_site_packages({tmp / "site-packages"});
  EXPECT_TRUE(framework_build_findings(env, test::fixture_inventory("h100-8x"), data()).empty());
}

TEST(FrameworkBuild, ThroughAnInterpreter) {
  // The real entry point asks an interpreter for sys.path; a missing one is an info finding.
  HostRoot host(HostOptions{});
  auto f =
      framework_build_findings(host, test::fixture_inventory("h100-8x"), "/nonexistent/python3");
  ASSERT_EQ(codes(f), std::vector<std::string>{"torch.env-unreadable"});
  EXPECT_EQ(f[0].severity, Severity::info);
}

}  // namespace
}  // namespace anygpu
