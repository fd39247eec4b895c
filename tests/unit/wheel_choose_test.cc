// `anygpu wheel`'s decision on fixture hosts and modified copies of them: driver floors, GPU
// architecture coverage, ROCm gfx targets, Intel xpu, plugin vendors, no accelerator.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"
#include "wheel/choose.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

const WheelData& data() {
  const auto& d = builtin_wheel_data();
  EXPECT_FALSE(d.packages.empty()) << "the built-in data/wheels.yaml did not parse";
  return d;
}

WheelChoice choose(const Inventory& inv, std::optional<std::string> version = std::nullopt,
                   std::optional<std::string> vendor = std::nullopt) {
  WheelRequest req;
  req.version = std::move(version);
  req.vendor = std::move(vendor);
  auto c = choose_wheel(data(), inv, req);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : WheelChoice{};
}

// A copy of the h100-8x fixture with another NVIDIA driver and, optionally, other GPUs.
std::string nvidia_host(const TempDir& tmp, const std::string& driver,
                        const std::string& device_id = "", const std::string& model = "") {
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  test::write_file(root + "/proc/driver/nvidia/version",
                   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + driver +
                       "  Fri May 31 09:35:42 UTC 2024\nGCC version:  gcc version 12.3.0\n");
  test::write_file(root + "/sys/module/nvidia/version", driver + "\n");
  if (!device_id.empty())
    for (const auto& e : fs::directory_iterator(root + "/proc/driver/nvidia/gpus")) {
      auto bus = e.path().filename().string();
      test::write_file(root + "/sys/bus/pci/devices/" + bus + "/device", device_id + "\n");
      auto info = e.path() / "information";
      std::ifstream in(info);
      std::string text((std::istreambuf_iterator<char>(in)), {});
      auto eol = text.find('\n');
      test::write_file(info.string(), "Model: \t\t " + model + text.substr(eol));
    }
  return root;
}

TEST(WheelChoose, H100NewestCudaTheDriverAllows) {
  auto c = choose(test::fixture_inventory("h100-8x"));
  // 550.90.07 meets the CUDA 12.x floor, not 13.x (580): cu126 is the only 12.x of 2.15.
  EXPECT_EQ(c.variant, "cu126");
  EXPECT_EQ(c.index_url, "https://download.pytorch.org/whl/cu126");
  EXPECT_EQ(c.pip, "pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cu126");
  EXPECT_EQ(c.uv,
            "uv pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cu126");
  EXPECT_NE(c.reason.find("550.90.07 >= 525.60.13"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("minor version compatibility"), std::string::npos) << c.reason;
  bool saw_cu130 = false;
  for (const auto& a : c.alternatives)
    if (a.variant == "cu130") {
      saw_cu130 = true;
      EXPECT_FALSE(a.fits);
      EXPECT_NE(a.note.find("580"), std::string::npos);
    }
  EXPECT_TRUE(saw_cu130);
}

TEST(WheelChoose, PinnedVersionPicksThatReleasesVariants) {
  auto c = choose(test::fixture_inventory("h100-8x"), "2.5.1");
  EXPECT_EQ(c.variant, "cu124");
  EXPECT_EQ(c.version, "2.5.1");
  auto d = choose(test::fixture_inventory("h100-8x"), "2.5");
  EXPECT_EQ(d.version, "2.5.1");  // major.minor: the release's newest patch
  auto e = choose(test::fixture_inventory("h100-8x"), "2.1.0+cu118");
  EXPECT_EQ(e.variant, "cu121");
  EXPECT_EQ(e.version, "2.1.0");
}

TEST(WheelChoose, DriverBoundaryOfTheCuda12Family) {
  {
    TempDir tmp;
    auto c = choose(test::probe_root(nvidia_host(tmp, "525.60.13")), "2.4");
    EXPECT_EQ(c.variant, "cu124") << c.reason;  // exactly the 12.x floor
  }
  {
    TempDir tmp;
    auto c = choose(test::probe_root(nvidia_host(tmp, "525.60.12")), "2.4");
    EXPECT_EQ(c.variant, "cu118") << c.reason;  // one below: only 11.x remains
    for (const auto& a : c.alternatives) {
      if (a.variant != "cu121") continue;
      EXPECT_NE(a.note.find("needs driver >= 525.60.13"), std::string::npos);
    }
  }
  {
    TempDir tmp;  // torch 2.8 has no 11.x build: a 12.x-incapable driver gets the CPU build
    auto c = choose(test::probe_root(nvidia_host(tmp, "520.61.05")), "2.8");
    EXPECT_EQ(c.variant, "cpu");
    EXPECT_NE(c.reason.find("upgrade the NVIDIA driver"), std::string::npos) << c.reason;
  }
  {
    TempDir tmp;
    auto c = choose(test::probe_root(nvidia_host(tmp, "580.65.06")), "2.9");
    EXPECT_EQ(c.variant, "cu130");
  }
}

// Every V100 board pci.ids lists is sm_70 from the device table alone (no NVML), so the CUDA 13
// builds (Turing and newer) are ruled out even on a driver that runs them.
TEST(WheelChoose, V100WithoutNvmlIsSm70) {
  for (const char* id : {"0x1db1", "0x1db4", "0x1db5", "0x1db6", "0x1df6"}) {
    SCOPED_TRACE(id);
    TempDir tmp;
    auto inv = test::probe_root(nvidia_host(tmp, "580.65.06", id, "Tesla V100"));
    ASSERT_FALSE(inv.devices.empty());
    EXPECT_EQ(inv.devices[0].arch.value_or("unknown"), "sm_70");
    auto c = choose(inv);
    EXPECT_EQ(c.variant, "cu126") << c.reason;
    EXPECT_NE(c.reason.find("with kernels for sm_70"), std::string::npos) << c.reason;
    for (const auto& a : c.alternatives)
      if (a.variant == "cu130" || a.variant == "cu132") {
        EXPECT_FALSE(a.fits);
        EXPECT_NE(a.note.find("no kernels for sm_70"), std::string::npos) << a.note;
      }
  }
}

// A GPU the device table does not know (and no NVML): its architecture is unknown, and the
// choice is the build with the broadest coverage, not the newest the driver runs (which was
// cu132 here: no Volta, Pascal or Maxwell kernels).
TEST(WheelChoose, UnknownArchitectureGetsTheBroadestBuild) {
  TempDir tmp;
  auto inv = test::probe_root(nvidia_host(tmp, "580.65.06", "0x1dff", "NVIDIA Unlisted"));
  ASSERT_FALSE(inv.devices.empty());
  ASSERT_FALSE(inv.devices[0].arch) << *inv.devices[0].arch;
  auto c = choose(inv);
  EXPECT_EQ(c.variant, "cu126") << c.reason;
  EXPECT_NE(c.reason.find("architecture unknown for "), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("broadest architecture coverage (cu126: sm_50…sm_90), not the newest"),
            std::string::npos)
      << c.reason;
  bool saw_cu132 = false;
  for (const auto& a : c.alternatives)
    if (a.variant == "cu132") {
      saw_cu132 = true;
      EXPECT_TRUE(a.fits);  // the driver runs it; whether the GPU does is what is unknown
      EXPECT_NE(a.note.find("unknown architecture"), std::string::npos) << a.note;
    }
  EXPECT_TRUE(saw_cu132);
  // Known architectures keep the newest covering build: an H100 on the same driver.
  TempDir tmp2;
  EXPECT_EQ(choose(test::probe_root(nvidia_host(tmp2, "580.65.06"))).variant, "cu132");
}

// Broadest: the oldest GPU a build runs on first (PTX counts), then the most cubins; the newer
// CUDA on a tie. A table where the newest build is also the broadest gives the newest.
TEST(WheelChoose, BroadestCoverageOrder) {
  auto table = [](const std::string& variants) {
    auto d = parse_wheel_data(
        "schema: anygpu.wheels/v1\nindex_url: https://example.invalid/{variant}\n"
        "cuda_families:\n  - {cuda: \"12\", driver_min: \"525.60.13\"}\n"
        "packages:\n  - name: torch\n    releases:\n      - version: \"9.1\"\n"
        "        latest: \"9.1.0\"\n        variants:\n" +
            variants,
        "t.yaml");
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message);
    return d.ok() ? *d : WheelData{};
  };
  TempDir tmp;
  auto inv = test::probe_root(nvidia_host(tmp, "580.65.06", "0x1dff", "NVIDIA Unlisted"));
  auto pick = [&](const WheelData& d) {
    WheelRequest req;
    auto c = choose_wheel(d, inv, req);
    EXPECT_TRUE(c.ok());
    return c.ok() ? c->variant : std::string();
  };
  EXPECT_EQ(pick(table("          - {name: cu121, cuda: \"12.1\", arches: [sm_75, sm_80]}\n"
                       "          - {name: cu128, cuda: \"12.8\", arches: [sm_50, sm_90]}\n")),
            "cu128");
  EXPECT_EQ(pick(table("          - {name: cu121, cuda: \"12.1\", arches: [sm_80], ptx: sm_60}\n"
                       "          - {name: cu128, cuda: \"12.8\", arches: [sm_70, sm_90]}\n")),
            "cu121");
  EXPECT_EQ(pick(table("          - {name: cu121, cuda: \"12.1\", arches: [sm_70, sm_80, sm_90]}\n"
                       "          - {name: cu128, cuda: \"12.8\", arches: [sm_70, sm_90]}\n")),
            "cu121");
  EXPECT_EQ(pick(table("          - {name: cu121, cuda: \"12.1\", arches: [sm_70, sm_90]}\n"
                       "          - {name: cu128, cuda: \"12.8\", arches: [sm_70, sm_90]}\n")),
            "cu128");
}

// The same for AMD: an MI300X whose gfx target is unknown takes the ROCm build with the most
// targets, not the newest; with its gfx942 known, the newest not newer than the host's ROCm.
TEST(WheelChoose, UnknownGfxGetsTheBroadestRocmBuild) {
  auto d = parse_wheel_data(
      "schema: anygpu.wheels/v1\nindex_url: https://example.invalid/{variant}\n"
      "cuda_families:\n  - {cuda: \"12\", driver_min: \"525.60.13\"}\n"
      "packages:\n  - name: torch\n    releases:\n      - version: \"9.1\"\n"
      "        latest: \"9.1.0\"\n        variants:\n"
      "          - {name: rocm6.1, rocm: \"6.1\", gfx: [gfx900, gfx906, gfx908, gfx90a, gfx942]}\n"
      "          - {name: rocm6.2, rocm: \"6.2\", gfx: [gfx90a, gfx942]}\n",
      "t.yaml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  Inventory inv = test::fixture_inventory("mi300x-8x");
  auto known = choose_wheel(*d, inv, {});
  ASSERT_TRUE(known.ok());
  EXPECT_EQ(known->variant, "rocm6.2") << known->reason;
  for (auto& dev : inv.devices) dev.arch.reset();
  auto unknown = choose_wheel(*d, inv, {});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->variant, "rocm6.1") << unknown->reason;
  EXPECT_NE(unknown->reason.find("architecture is unknown: of these, the build with the most gfx"),
            std::string::npos)
      << unknown->reason;
}

TEST(WheelChoose, BlackwellOnlyVariantsWithSm120) {
  TempDir tmp;
  auto inv = test::probe_root(nvidia_host(tmp, "570.133.07", "0x2b85", "NVIDIA GeForce RTX 5090"));
  ASSERT_FALSE(inv.devices.empty());
  ASSERT_EQ(inv.devices[0].arch.value_or(""), "sm_120");
  auto c = choose(inv, "2.7");
  EXPECT_EQ(c.variant, "cu128");
  for (const auto& a : c.alternatives) {
    if (a.variant == "cu126" || a.variant == "cu118") {
      EXPECT_FALSE(a.fits);
      EXPECT_NE(a.note.find("no kernels for sm_120"), std::string::npos) << a.note;
    }
  }
  // torch 2.6 has no Blackwell build at all: CPU, and the hint names the first that has one.
  auto old = choose(inv, "2.6");
  EXPECT_EQ(old.variant, "cpu");
  EXPECT_NE(old.reason.find("sm_120"), std::string::npos);
  EXPECT_NE(old.reason.find("2.7 cu128"), std::string::npos) << old.reason;
  // 2.9 on a 570 driver: cu128 (cu130 needs 580) even though cu130 also has sm_120.
  EXPECT_EQ(choose(inv, "2.9").variant, "cu128");
}

TEST(WheelChoose, Mi300xRocmNotNewerThanTheHost) {
  const auto& inv = test::fixture_inventory("mi300x-8x");  // gfx942, ROCm 6.2.4
  auto c = choose(inv, "2.7");
  EXPECT_EQ(c.variant, "rocm6.2.4");
  EXPECT_NE(c.reason.find("gfx942"), std::string::npos);
  EXPECT_NE(c.reason.find("6.2.4"), std::string::npos);
  // 2.8 only has 6.3 and 6.4: both newer than the host, so the newest covering one, said so.
  auto n = choose(inv, "2.8");
  EXPECT_EQ(n.variant, "rocm6.4");
  EXPECT_NE(n.reason.find("newer than the host's ROCm 6.2.4"), std::string::npos) << n.reason;
}

// A copy of the mi300x-8x fixture (gfx942, ROCm 6.2.4) with another amdgpu-dkms module.
std::string amd_host(const TempDir& tmp, const std::string& module_version) {
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  test::write_file(root + "/sys/module/amdgpu/version", module_version + "\n");
  return root;
}

// AMD's user/kernel-space matrix: amdgpu-dkms 6.8.5 is ROCm 6.2's driver (user space 6.0-7.0).
TEST(WheelChoose, Mi300xRocmWithinWhatTheKernelDriverSupports) {
  const auto& inv = test::fixture_inventory("mi300x-8x");
  auto ok = choose(inv, "2.10");  // rocm7.0 and rocm7.1: 7.0 is the newest 6.8.5 supports
  EXPECT_EQ(ok.variant, "rocm7.0") << ok.reason;
  EXPECT_NE(ok.reason.find("amdgpu kernel driver 6.8.5 (ROCm 6.2) supports it"), std::string::npos)
      << ok.reason;
  for (const auto& a : ok.alternatives)
    if (a.variant == "rocm7.1") {
      EXPECT_FALSE(a.fits) << a.note;
    }
  // 2.13 has only rocm7.1 and rocm7.2, which this driver refuses: the choice is the CPU build,
  // never a ROCm build that would not run, and the reason names the upgrade and what runs now.
  auto up = choose(inv, "2.13");
  EXPECT_EQ(up.variant, "cpu");
  EXPECT_FALSE(up.accelerated);
  EXPECT_NE(up.reason.find("not 7.2: upgrade the amdgpu kernel driver"), std::string::npos)
      << up.reason;
  EXPECT_NE(up.reason.find("torch 2.10 rocm7.0 is the newest build it supports"), std::string::npos)
      << up.reason;
  // Assuming the upgrade, the ROCm build, saying what it needs.
  WheelRequest later;
  later.version = "2.13";
  later.assume_driver_upgrade = true;
  auto after = choose_wheel(data(), inv, later);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->variant, "rocm7.2");
  EXPECT_NE(after->needs.find("supports ROCm 7.2 (the host's 6.8.5 supports"), std::string::npos)
      << after->needs;
  EXPECT_TRUE(ok.needs.empty()) << ok.needs;
}

TEST(WheelChoose, OldAmdgpuDriverLimitsTheRocmBuild) {
  TempDir tmp;
  auto inv = test::probe_root(amd_host(tmp, "6.3.6"));  // ROCm 6.0's driver: 5.6 to 6.2
  auto c = choose(inv, "2.5");                          // rocm6.1, rocm6.2
  EXPECT_EQ(c.variant, "rocm6.2");
  auto up = choose(inv, "2.9");  // rocm6.3, rocm6.4: neither
  EXPECT_EQ(up.variant, "cpu");
  EXPECT_NE(up.reason.find("6.3.6 (ROCm 6.0) supports ROCm user space 5.6, 5.7, 6.0, 6.1, 6.2, "
                           "not 6.4: upgrade the amdgpu kernel driver"),
            std::string::npos)
      << up.reason;
  EXPECT_NE(up.reason.find("torch 2.7 rocm6.2.4 is the newest build it supports"),
            std::string::npos)
      << up.reason;
  for (const auto& a : up.alternatives)
    if (a.variant == "rocm6.3") {
      EXPECT_FALSE(a.fits) << a.note;
    }
  // A module in no row of the matrix is not checked, and says so.
  TempDir tmp2;
  auto unknown = choose(test::probe_root(amd_host(tmp2, "6.16.6")), "2.9");
  EXPECT_NE(unknown.reason.find("6.16.6 is not in AMD's support matrix"), std::string::npos)
      << unknown.reason;
}

TEST(WheelChoose, IntelGetsXpuWhereTheReleaseHasIt) {
  const auto& inv = test::fixture_inventory("intel-max-arc");
  EXPECT_EQ(choose(inv, "2.5").variant, "xpu");
  auto old = choose(inv, "2.4");
  EXPECT_EQ(old.variant, "cpu");
  EXPECT_NE(old.reason.find("xpu builds start at 2.5"), std::string::npos) << old.reason;
}

TEST(WheelChoose, AscendPluginPairedWithTheHostsCann) {
  const auto& inv = test::fixture_inventory("ascend-910b-8x");  // CANN 8.0.RC2
  auto c = choose(inv, "2.1");
  EXPECT_EQ(c.vendor, "ascend");
  EXPECT_EQ(c.variant, "torch-npu");
  EXPECT_EQ(c.pip,
            "pip install torch==2.1.0 torch-npu==2.1.0.post6 --index-url https://pypi.org/simple");
  auto newest = choose(inv);  // no version: the newest pair for CANN 8.0.RC2
  EXPECT_EQ(newest.version, "2.3.1");
  WheelRequest req;
  req.version = "2.9";
  auto none = choose_wheel(data(), inv, req);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->pip.empty());
  EXPECT_NE(none->reason.find("no pairing"), std::string::npos);
}

// A host on CANN 9.1.0 gets the newest pair its sources give: torch-npu 2.14.0 (named with
// CANN 9.1.0 by its own package metadata); 2.13.0, with no CANN named anywhere, is never offered.
TEST(WheelChoose, AscendOnCann91GetsTorchNpu214) {
  TempDir tmp;
  auto root = tmp.path() + "/host";
  test::copy_tree(test::fixture_host("ascend-910b-8x"), root);
  // The toolkit's install record, where `check` and `wheel` read the CANN version.
  auto info =
      root + "/usr/local/Ascend/ascend-toolkit/8.0.RC2/aarch64-linux/ascend_toolkit_install.info";
  ASSERT_EQ(::unlink(info.c_str()), 0);
  test::write_file(info,
                   "package_name=Ascend-cann-toolkit\nversion=9.1.0\narch=aarch64\nos=linux\n");
  auto inv = test::probe_root(root);
  auto newest = choose(inv);
  EXPECT_EQ(newest.version, "2.14.0");
  EXPECT_EQ(newest.pip,
            "pip install torch==2.14.0 torch-npu==2.14.0 --index-url https://pypi.org/simple");
  WheelRequest req;
  req.version = "2.13";
  auto none = choose_wheel(data(), inv, req);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->pip.empty()) << none->pip;
}

TEST(WheelChoose, HygonHasNoPublicIndex) {
  auto c = choose(test::fixture_inventory("hygon-dcu"));
  EXPECT_EQ(c.vendor, "hygon");
  EXPECT_TRUE(c.pip.empty());
  EXPECT_EQ(c.version, "") << "DTK builds are not tied to an upstream torch release";
  EXPECT_NE(c.reason.find("DTK"), std::string::npos) << c.reason;
}

// pytorch/pytorch RELEASE.md and the CUDA support matrix of pytorch#172352: the builds a
// V100, a K80 and an MI300X get, release by release.
TEST(WheelChoose, ArchListsPerRelease) {
  {
    TempDir tmp;  // V100 (sm_70) on a 570 driver
    auto inv = test::probe_root(nvidia_host(tmp, "570.133.07", "0x1db4", "Tesla V100-PCIE-16GB"));
    ASSERT_EQ(inv.devices.at(0).arch.value_or(""), "sm_70");
    EXPECT_EQ(choose(inv, "2.7").variant, "cu126");   // 2.7's cu128 dropped Volta (#147607)
    EXPECT_EQ(choose(inv, "2.10").variant, "cu128");  // still sm_70 in 2.10's cu128
    EXPECT_EQ(choose(inv, "2.11").variant, "cu126");  // not in 2.11's (#175253, #182250)
  }
  {
    TempDir tmp;  // K80 (sm_37): cu118 of 2.1-2.5 carries sm_37
    auto inv = test::probe_root(nvidia_host(tmp, "470.256.02", "0x102d", "Tesla K80"));
    ASSERT_EQ(inv.devices.at(0).arch.value_or(""), "sm_37");
    EXPECT_EQ(choose(inv, "2.3").variant, "cu118");
  }
  const auto& mi = test::fixture_inventory("mi300x-8x");  // gfx942
  EXPECT_NE(choose(mi, "2.3").variant, "rocm5.7") << "2.3's rocm5.7 has no gfx942";
  EXPECT_NE(choose(mi, "2.2").variant, "rocm5.7") << "2.2's rocm5.7 has no gfx942";
  const auto* r27 = data().package("torch")->release("2.7");
  for (const auto& v : r27->variants)
    if (v.name == "cu128") {
      EXPECT_FALSE(v.ptx) << "cu128 builds carry no PTX";
    }
  for (const auto& rel : data().package("torch")->releases)
    for (const auto& v : rel.variants)
      for (const auto& a : v.arches)
        EXPECT_NE(a, "sm_110") << rel.version << " " << v.name << ": x86_64 builds";
}

TEST(WheelChoose, NoAcceleratorIsCpu) {
  auto c = choose(test::fixture_inventory("cloud-vm-none"));
  EXPECT_EQ(c.vendor, "none");
  EXPECT_EQ(c.variant, "cpu");
  EXPECT_EQ(c.index_url, "https://download.pytorch.org/whl/cpu");
}

TEST(WheelChoose, MixedHostDecidesForTheDiscreteGpuAndNamesTheOther) {
  const auto& inv = test::fixture_inventory("workstation-mixed");  // RTX 4090 + RX 7900 XTX
  auto c = choose(inv, "2.6");
  EXPECT_EQ(c.vendor, "nvidia");
  EXPECT_EQ(c.variant, "cu126");  // sm_89 runs sm_86 cubins
  bool names_amd = false;
  for (const auto& a : c.alternatives)
    names_amd |= a.note.find("--vendor amd") != std::string::npos;
  EXPECT_TRUE(names_amd);
  auto amd = choose(inv, "2.6", "amd");
  EXPECT_EQ(amd.variant, "rocm6.2.4");  // gfx1100; no host ROCm found
  WheelRequest req;
  req.vendor = "intel";
  auto err = choose_wheel(data(), inv, req);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().kind, ErrorKind::host);
}

TEST(WheelChoose, UnknownVersionListsTheKnownOnes) {
  WheelRequest req;
  req.version = "3.0";
  auto c = choose_wheel(data(), test::fixture_inventory("h100-8x"), req);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::bad_input);
  EXPECT_NE(c.error().message.find("known: 2.1, 2.2"), std::string::npos) << c.error().message;
  req.version = "2.x";
  EXPECT_FALSE(choose_wheel(data(), test::fixture_inventory("h100-8x"), req).ok());
  req.version.reset();
  req.package = "tensorflow";
  auto p = choose_wheel(data(), test::fixture_inventory("h100-8x"), req);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("known: torch"), std::string::npos);
}

TEST(WheelChoose, TableWithoutCudaBuildsGivesCpu) {
  auto d = parse_wheel_data(R"(schema: anygpu.wheels/v1
index_url: https://example.org/{variant}
cuda_families: []
packages:
  - name: torch
    releases:
      - {version: "2.5", latest: "2.5.1", variants: [{name: cpu}]}
)",
                            "t.yaml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  auto c = choose_wheel(*d, test::fixture_inventory("h100-8x"), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->variant, "cpu");
  EXPECT_EQ(c->index_url, "https://example.org/cpu");
  auto amd = choose_wheel(*d, test::fixture_inventory("mi300x-8x"), {});
  ASSERT_TRUE(amd.ok());
  EXPECT_EQ(amd->variant, "cpu");
}

TEST(WheelArch, CoverageFollowsCudaBinaryCompatibility) {
  std::vector<std::string> hopper{"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"};
  EXPECT_TRUE(cuda_arch_covered(hopper, std::nullopt, "sm_89"));  // same major, newer minor
  EXPECT_TRUE(cuda_arch_covered(hopper, std::nullopt, "sm_90"));
  EXPECT_FALSE(cuda_arch_covered(hopper, std::nullopt, "sm_100"));  // other major
  EXPECT_FALSE(cuda_arch_covered(hopper, std::nullopt, "sm_120"));
  EXPECT_FALSE(cuda_arch_covered({"sm_75", "sm_80"}, std::nullopt, "sm_70"));  // older GPU
  EXPECT_TRUE(cuda_arch_covered({"sm_90"}, std::string("sm_90"), "sm_120"));   // PTX JIT
  EXPECT_TRUE(cuda_arch_covered({"sm_120"}, std::nullopt, "sm_121"));
  EXPECT_FALSE(cuda_arch_covered(hopper, std::nullopt, "gfx942"));
  EXPECT_FALSE(cuda_arch_covered(hopper, std::nullopt, "sm_"));
}

TEST(WheelArch, VariantOfAnInstalledBuild) {
  EXPECT_EQ(variant_of_build("2.5.1+cu124", std::string("12.4"), std::nullopt, std::nullopt),
            "cu124");
  EXPECT_EQ(variant_of_build("2.5.1", std::string("12.4"), std::nullopt, std::nullopt), "cu124");
  EXPECT_EQ(
      variant_of_build("2.4.0", std::nullopt, std::string("6.1.40091-a8dbc0c19"), std::nullopt),
      "rocm6.1");
  EXPECT_EQ(variant_of_build("2.5.0+xpu", std::nullopt, std::nullopt, std::nullopt), "xpu");
  EXPECT_EQ(variant_of_build("2.5.0", std::nullopt, std::nullopt, std::nullopt), "cpu");
}

}  // namespace
}  // namespace anygpu
