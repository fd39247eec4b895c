#include "registry/registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "registry/registry_emit.h"
#include "registry/registry_yaml.h"
#include "test_support.h"

namespace anygpu {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
std::string data(const char* name) {
  return slurp(test::source_dir() + "/data/" + name);
}

// Loads a vendors.yaml text with the real devices.yaml; returns the error message or "".
std::string load_error(const std::string& vendors,
                       const std::string& devices = data("devices.yaml")) {
  auto r = load_registry(vendors, "v.yaml", devices, "d.yaml");
  return r ? std::string() : r.error().message;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}
}  // namespace

TEST(Registry, BuiltinStartsWithTheSpecsTwelveVendorsInOrder) {
  // The SPEC's twelve come first, in its order; vendors added as data follow them.
  const auto& r = Registry::builtin();
  std::vector<std::string> ids;
  for (const auto& v : r.vendors()) ids.emplace_back(v.id);
  ASSERT_GE(ids.size(), 12u);
  ids.resize(12);
  EXPECT_EQ(ids, (std::vector<std::string>{"nvidia", "amd", "intel", "ascend", "mthreads",
                                           "cambricon", "hygon", "iluvatar", "metax", "enflame",
                                           "kunlunxin", "gaudi"}));
}

TEST(Registry, BuiltinMatchesTheDataFiles) {
  auto loaded =
      load_registry(data("vendors.yaml"), "vendors.yaml", data("devices.yaml"), "devices.yaml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto fresh = (*loaded)->registry();
  const auto& built = Registry::builtin();
  ASSERT_EQ(fresh.vendors().size(), built.vendors().size());
  ASSERT_EQ(fresh.devices().size(), built.devices().size());
  for (size_t i = 0; i < built.vendors().size(); ++i) {
    const auto &a = fresh.vendors()[i], &b = built.vendors()[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.visible_devices_env, b.visible_devices_env);
    EXPECT_TRUE(std::equal(a.pci_classes.begin(), a.pci_classes.end(), b.pci_classes.begin(),
                           b.pci_classes.end()));
    EXPECT_EQ(a.sources.size(), b.sources.size());
    EXPECT_EQ(a.container.driver_files.tools.size(), b.container.driver_files.tools.size());
    EXPECT_EQ(a.container.driver_files.sources.size(), b.container.driver_files.sources.size());
  }
}

TEST(Registry, FactsOthersRelyOn) {
  const auto& r = Registry::builtin();
  EXPECT_EQ(r.vendor("nvidia")->visible_devices_env, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(r.vendor("amd")->visible_devices_env, "HIP_VISIBLE_DEVICES");  // never ROCR_ too
  EXPECT_EQ(r.vendor("amd")->torch_device, "cuda");
  EXPECT_EQ(r.vendor("amd")->dist_backend, "nccl");
  EXPECT_EQ(r.vendor("intel")->torch_device, "xpu");
  EXPECT_EQ(r.vendor("ascend")->torch_package, "torch_npu");
  EXPECT_EQ(r.vendor("gaudi")->visible_devices_env, "HABANA_VISIBLE_MODULES");
  // Iluvatar renamed iluvatar.ai to iluvatar.com in Dec 2024 (Deep-Spark/ix-device-plugin
  // README resourceName; ix-container-toolkit pkg/ixcdi/spec/builder.go vendor).
  EXPECT_EQ(r.vendor("iluvatar")->k8s_resource, "iluvatar.com/gpu");
  EXPECT_EQ(r.vendor("iluvatar")->cdi_kind, "iluvatar.com/gpu");
  // Classification: an H100 (0x0302) and an MI300X (0x1200) are accelerators; AMD's CPU-side
  // 0x1022 functions, a GPU's HDMI audio (0x0403) and a bridge (0x0604) are not.
  EXPECT_EQ(r.vendor_for_pci(0x10de, 0x030200)->id, "nvidia");
  EXPECT_EQ(r.vendor_for_pci(0x1002, 0x120000)->id, "amd");
  EXPECT_EQ(r.vendor_for_pci(0x1022, 0x130000), nullptr);
  EXPECT_EQ(r.vendor_for_pci(0x10de, 0x040300), nullptr);
  EXPECT_EQ(r.vendor_for_pci(0x1002, 0x060400), nullptr);
  EXPECT_EQ(r.vendor_for_pci(0x1a03, 0x030000), nullptr);  // ASPEED BMC
  EXPECT_EQ(r.vendor_for_pci(0x1d94, 0x060000), nullptr);  // Hygon chipset
  EXPECT_EQ(r.vendor_for_pci(0x1d94, 0x0b4000)->id, "hygon");
}

TEST(Registry, VendorFactsTheCodeOnceHeld) {
  const auto& r = Registry::builtin();
  EXPECT_EQ(r.vendor("nvidia")->display_name, "NVIDIA");
  EXPECT_EQ(r.vendor("ascend")->display_name, "Huawei Ascend");
  EXPECT_EQ(r.vendor("gaudi")->display_name, "Intel Gaudi");
  auto build = [&](const char* id) {
    auto b = r.vendor(id)->torch_build();
    return std::string(b.kind) + (b.pytorch_index ? "" : " (vendor)");
  };
  EXPECT_EQ(build("nvidia"), "cuda");
  EXPECT_EQ(build("amd"), "rocm");
  EXPECT_EQ(build("intel"), "xpu");
  EXPECT_EQ(build("ascend"), "plugin");
  EXPECT_EQ(build("hygon"), "rocm (vendor)");  // DTK's own torch reports HIP
  EXPECT_EQ(build("iluvatar"), " (vendor)");
  EXPECT_EQ(r.vendor("ascend")->access.group, "HwHiAiUser");
  ASSERT_EQ(r.vendor("nvidia")->access.essential.size(), 2u);
  EXPECT_EQ(r.vendor("amd")->access.essential[0], "/dev/kfd");
  EXPECT_TRUE(r.vendor("intel")->access.essential.empty());
  EXPECT_EQ(r.vendor("nvidia")->container.toolkit.files[0], "/usr/bin/nvidia-ctk");
  EXPECT_EQ(r.vendor("gaudi")->container.toolkit.name, "Intel Gaudi container runtime");
  EXPECT_TRUE(r.vendor("intel")->container.toolkit.name.empty());
  EXPECT_EQ(r.vendor("nvidia")->kmsg_starts[0], "NVRM:");
  EXPECT_EQ(r.vendor("ascend")->kmsg_starts[0], "[ascend]");
}

// Containers get the render node of each device for every vendor whose compute or graphics
// stack opens it: the DRM-computing vendors (ROCm, Level Zero, MUSA, MACA: device_nodes.drm),
// and NVIDIA, whose EGL and Vulkan open the GPU's card and render nodes (nvidia-ctk gives both).
TEST(Registry, RenderNodeForEveryStackThatOpensIt) {
  auto has = [](Strings list, std::string_view x) {
    return std::find(list.begin(), list.end(), x) != list.end();
  };
  for (const auto& v : Registry::builtin().vendors()) {
    if (v.drm_nodes) {
      EXPECT_TRUE(has(v.container.drm, "render")) << v.id;
      // Only the host's video/render groups open DRM nodes for a non-root container user.
      EXPECT_TRUE(has(v.container.groups, "render")) << v.id;
    }
  }
  const auto& nv = Registry::builtin().vendor("nvidia")->container;
  EXPECT_TRUE(has(nv.drm, "card"));
  EXPECT_TRUE(has(nv.drm, "render"));
  EXPECT_TRUE(has(nv.groups, "video"));
  EXPECT_TRUE(has(nv.groups, "render"));
}

TEST(Registry, DeviceTableCoversTheRequiredModels) {
  const auto& r = Registry::builtin();
  struct Want {
    const char* vendor;
    uint16_t id;
    const char* arch;
  };
  for (auto w :
       {Want{"nvidia", 0x2335, "sm_90"}, Want{"nvidia", 0x2330, "sm_90"},
        Want{"nvidia", 0x2331, "sm_90"}, Want{"nvidia", 0x20b0, "sm_80"},
        Want{"nvidia", 0x20b2, "sm_80"}, Want{"nvidia", 0x26b9, "sm_89"},
        Want{"nvidia", 0x2684, "sm_89"}, Want{"nvidia", 0x2b85, "sm_120"},
        Want{"amd", 0x74a1, "gfx942"}, Want{"amd", 0x740c, "gfx90a"}, Want{"amd", 0x740f, "gfx90a"},
        Want{"intel", 0x0bd5, ""}, Want{"intel", 0x56a0, ""}, Want{"ascend", 0xd802, ""},
        Want{"gaudi", 0x1020, ""}, Want{"gaudi", 0x1060, ""}}) {
    const auto* d = r.device(w.vendor, w.id);
    ASSERT_NE(d, nullptr) << w.vendor << " " << w.id;
    if (*w.arch) {
      EXPECT_EQ(d->arch, w.arch);
    }
    EXPECT_FALSE(d->source.empty());
  }
  EXPECT_EQ(r.device("amd", 0x74a1)->memory_bandwidth_gbps, 5300);
  EXPECT_EQ(r.device("amd", 0x74a1)->matmul_tflops, 1307.4);
  EXPECT_EQ(r.device("nvidia", 0x2330)->matmul_tflops, 989.5);
  EXPECT_EQ(r.device("nvidia", 0x2330)->matmul_source, "https://www.nvidia.com/en-us/data-center/h100/");
  EXPECT_FALSE(r.device("nvidia", 0x2684)->matmul_tflops);  // a GeForce card: not in the table
}

// A PCI device id shared by boards of different memory names the family and gives no memory
// figure (0x744c: RX 7900 XTX/XT/GRE; 0x56a0: A770 8 GB and 16 GB); 0x740c is MI250X and MI250.
TEST(Registry, DeviceIdSharedByBoards) {
  const auto& r = Registry::builtin();
  const auto* navi31 = r.device("amd", 0x744c);
  ASSERT_NE(navi31, nullptr);
  EXPECT_EQ(navi31->name, "AMD Radeon RX 7900 XTX / 7900 XT / 7900 GRE");
  EXPECT_FALSE(navi31->memory_gib);
  EXPECT_FALSE(navi31->memory_bandwidth_gbps);
  EXPECT_EQ(r.device("amd", 0x740c)->name, "AMD Instinct MI250X / MI250");
  const auto* a770 = r.device("intel", 0x56a0);
  ASSERT_NE(a770, nullptr);
  EXPECT_FALSE(a770->memory_gib) << "the A770 comes with 8 GB and with 16 GB";
}

TEST(RegistryYaml, ErrorsNameFileLineColumn) {
  auto v = data("vendors.yaml");
  auto e = load_error(replace(v, "    drivers: [nvidia]", "    drviers: [nvidia]"));
  EXPECT_NE(e.find("v.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'drviers' (did you mean 'drivers'?)"), std::string::npos) << e;
  EXPECT_NE(e.find(":23:5:"), std::string::npos) << e;  // line and column of the key
}

TEST(RegistryYaml, RejectsMalformedData) {
  auto v = data("vendors.yaml");
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> cases = {
      {replace(v, "vendor_ids: [\"0x10de\"]", "vendor_ids: [\"10de\"]"), "4-digit hex"},
      {replace(v, "vendor_ids: [\"0x10de\"]", "vendor_ids: [\"0xfffff\"]"), "4-digit hex"},
      {replace(v, "classes: [\"0x0300\", \"0x0302\"]", "classes: [\"0x0200\"]"), "classes"},
      {replace(v, "  - id: amd", "  - id: nvidia"), "duplicate vendor id"},
      {replace(v, "  - id: amd", "  - id: Acme"), "vendor id 'Acme': lower-case"},
      {replace(v, "  - id: amd", "  - id: \"ac me\""), "vendor id 'ac me'"},
      {replace(v, "      - api: nvml", "      - api: \"nv/ml\""), "library api 'nv/ml'"},
      {replace(v, "      drm: [render]   #", "      drm: [display]   #"), "is not card or render"},
      {replace(
           v,
           "      withhold: []\n      mounts: []\n      env: {}\n"
           "      groups: [video, render]\n      driver_files:\n        libraries: [libmtml.so",
           "      withhold: [/dev/mtgpu.0]\n      mounts: []\n      env: {}\n"
           "      groups: [video, render]\n      driver_files:\n        libraries: [libmtml.so"),
       "not one of the vendor's shared device nodes"},
      {replace(v, "      physical_names: true", "      physical_names: yes please"),
       "physical_names: true or false"},
      {replace(v, "      env: {NVIDIA_VISIBLE_DEVICES: void}",
               "      env: {NVIDIA_VISIBLE_DEVICES: void}\n      physical_names: [true]"),
       "physical_names: true or false"},
      {replace(v,
               "      groups: [video, render]\n      driver_files:\n        libraries: [libmtml.so",
               "      groups: [video, render]\n      physical_names: true\n      driver_files:\n"
               "        libraries: [libmtml.so"),
       "without a {minor} per-device node"},
      // container.driver_files: known keys, absolute paths, file names, a source per field.
      {replace(v, "        tools: [npu-smi]", "        toolz: [npu-smi]"), "unknown key 'toolz'"},
      {replace(v, "        tool_dirs: [/usr/local/bin]", "        tool_dirs: [usr/local/bin]"),
       "is not an absolute path without '..'"},
      {replace(v, "        library_dirs: [/opt/hyhal/lib]", "        library_dirs: [/opt/../etc]"),
       "is not an absolute path without '..'"},
      {replace(v, "        tools: [mthreads-gmi]", "        tools: [/usr/bin/mthreads-gmi]"),
       "is not a file name"},
      {replace(v, "        libraries: [libefml.so]", "        libraries: [\"..\"]"),
       "is not a file name"},
      {replace(v, "          tools: https://www.enflame-tech.com/\n", ""),
       "driver_files: no source for 'tools'"},
      {replace(v, "          tools: https://www.enflame-tech.com/",
               "          tools: www.enflame-tech.com"),
       "must be an https URL"},
      {replace(
           v, "          tools: https://www.enflame-tech.com/",
           "          tools: https://www.enflame-tech.com/\n          config: https://x.example/"),
       "source for absent field 'config'"},
      {replace(v, "        unverified: [libraries, tools]",
               "        unverified: [libraries, toolz]"),
       "unverified names unknown field 'toolz'"},
      {replace(v, "        libraries: [libefml.so]\n        tools: [efsmi]\n        sources:",
               "        libraries: [libefml.so]\n        tools: [efsmi]\n        sourcez:"),
       "sources"},
      {replace(v, "        libraries: [libefml.so]", "        libraries: libefml.so"), "v.yaml:"},
      {replace(v, "      driver_files:\n        libraries: [libefml.so]",
               "      driver_files: [libefml.so]\n      x_files:\n        libraries: [libefml.so]"),
       "v.yaml:"},
      {replace(v, "{path: /usr/local/dcmi, options: [ro, nosuid, nodev]}",
               "{path: /usr/local/dcmi, options: [nosuid]}"),
       "options must include ro"},
      {replace(v, "{path: /usr/local/dcmi, options: [ro, nosuid, nodev]}",
               "{path: /usr/local/dcmi, options: [ro, rw]}"),
       "mount option 'rw'"},
      {replace(v, "{path: /usr/local/dcmi, options: [ro, nosuid, nodev]}",
               "{path: /, options: [ro]}"),
       "must be absolute, not /"},
      {replace(v, "      env: {NVIDIA_VISIBLE_DEVICES: void}", "      env: {\"A=B\": void}"),
       "is not a variable name"},
      // Every variable name is printed after `export` for `eval`: shell code is refused.
      {replace(v, "extra: {CUDA_DEVICE_ORDER: PCI_BUS_ID}", "extra: {\"X$(touch F)\": PCI_BUS_ID}"),
       "'X$(touch F)' is not a variable name"},
      {replace(v, "visible_devices: CUDA_VISIBLE_DEVICES", "visible_devices: \"A;id\""),
       "'A;id' is not a variable name"},
      {replace(v, "container_visible_devices: NVIDIA_VISIBLE_DEVICES",
               "container_visible_devices: 9LIVES"),
       "'9LIVES' is not a variable name"},
      {replace(v, "conflicting: [CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL",
               "conflicting: [\"CUDA VISIBLE\", GPU_DEVICE_ORDINAL"),
       "'CUDA VISIBLE' is not a variable name"},
      {replace(v, "      env: {NVIDIA_VISIBLE_DEVICES: void}", "      env: {\"`id`\": void}"),
       "'`id`' is not a variable name"},
      {replace(v, "      k8s_resource: https://github.com/NVIDIA/k8s-device-plugin\n", ""),
       "no source for field 'k8s_resource'"},
      {replace(v, "drm: false", "drm: maybe"), "expected true or false"},
      {replace(v, "schema: anygpu.vendors/v1", "schema: anygpu.vendors/v9"), "schema must be"},
      {replace(v, "vendors:\n", "vendors: {\n"), "v.yaml:"},
      {"", "expected a mapping"},
      {std::string(5000, '['), "v.yaml"},
      {"vendors: []\nschema: anygpu.vendors/v1\n\0garbage", "NUL"},
  };
  cases.back().text.push_back('\0');
  for (const auto& c : cases) {
    auto e = load_error(c.text);
    EXPECT_NE(e.find(c.message), std::string::npos)
        << "want '" << c.message << "', got '" << e << "'";
  }
  auto d = data("devices.yaml");
  auto e = load_error(v, replace(d, "  - vendor: nvidia\n", "  - vendor: acme\n"));
  EXPECT_NE(e.find("vendor 'acme' is not in the vendor registry"), std::string::npos) << e;
  e = load_error(v, replace(d, "memory_gib: 141", "memory_gib: lots"));
  EXPECT_NE(e.find("expected a non-negative number"), std::string::npos) << e;
  // preflight's datasheet figure: positive, and never without the URL it came from.
  const std::string h200 = "    matmul_tflops: 989.5\n    matmul_source: https://www.nvidia.com/en-us/data-center/h200/\n";
  ASSERT_NE(d.find(h200), std::string::npos);
  e = load_error(v, replace(d, h200, "    matmul_tflops: 989.5\n"));
  EXPECT_NE(e.find("matmul_tflops needs matmul_source"), std::string::npos) << e;
  e = load_error(v, replace(d, h200, "    matmul_source: https://www.nvidia.com/\n"));
  EXPECT_NE(e.find("matmul_source without matmul_tflops"), std::string::npos) << e;
  e = load_error(v, replace(d, h200, "    matmul_tflops: 0\n    matmul_source: https://x.example/\n"));
  EXPECT_NE(e.find("matmul_tflops must be positive"), std::string::npos) << e;
  e = load_error(v, replace(d, h200, "    matmul_tflops: 9\n    matmul_source: http://x.example/\n"));
  EXPECT_NE(e.find("matmul_source must be an https URL"), std::string::npos) << e;
}

TEST(RegistryYaml, RejectsMalformedVendorFacts) {
  auto v = data("vendors.yaml");
  // Where the error is: FILE:LINE:COLUMN of the bad value.
  auto e = load_error(replace(v, "backend: nccl, build: cuda}", "backend: nccl, build: cuda12}"));
  EXPECT_NE(e.find("v.yaml:39:65: torch build 'cuda12'"), std::string::npos) << e;
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> cases = {
      // slurm.gres_flags: gres.conf(5) environment flags only, no_gpu_env alone
      {replace(v, "gres_flags: [nvidia_gpu_env]", "gres_flags: [cuda_env]"),
       "v.yaml:87:20: gres_flags: 'cuda_env' is not a gres.conf environment flag"},
      {replace(v, "gres_flags: [nvidia_gpu_env]", "gres_flags: [nvidia_gpu_env, nvidia_gpu_env]"),
       "gres_flags: 'nvidia_gpu_env' appears twice"},
      {replace(v, "gres_flags: [nvidia_gpu_env]", "gres_flags: [no_gpu_env, nvidia_gpu_env]"),
       "no_gpu_env excludes every other flag"},
      {replace(v, "gres_flags: [nvidia_gpu_env]", "gres_flags: []"),
       "gres_flags: must not be empty"},
      {replace(v, "gres_flags: [nvidia_gpu_env]", "gres_flag: [nvidia_gpu_env]"),
       "unknown key 'gres_flag'"},
      {replace(v, "    slurm:\n      gres_flags: [nvidia_gpu_env]", "    slurm: nvidia_gpu_env"),
       "v.yaml:86:12:"},
      {replace(v, "      slurm: https://slurm.schedmd.com/gres.conf.html\n", ""),
       "no source for field 'slurm'"},
      // display_name
      {replace(v, "    display_name: NVIDIA\n", ""), "missing key 'display_name'"},
      {replace(v, "    display_name: NVIDIA\n", "    display_name: \"\"\n"),
       "display_name: must not be empty"},
      {replace(v, "    display_name: NVIDIA\n", "    display_name: " + std::string(41, 'N') + "\n"),
       "display_name: a short name"},
      {replace(v, "    display_name: NVIDIA\n", "    display_name: [NVIDIA]\n"), "v.yaml:"},
      {replace(v, "      display_name: https://www.nvidia.com/\n", ""),
       "no source for field 'display_name'"},
      // torch.build
      {replace(v, "backend: nccl, build: cuda}", "backend: nccl}"), "missing key 'build'"},
      {replace(v, "backend: nccl, build: cuda}", "backend: nccl, build: plugin}"),
       "torch build 'plugin' goes with a package other than torch"},
      {replace(v, "backend: hccl, build: plugin}", "backend: hccl, build: cuda}"),
       "torch build 'plugin' goes with a package other than torch"},
      {replace(v, "      torch.build: https://pytorch.org/get-started/locally/\n", ""),
       "no source for field 'torch.build'"},
      {replace(v, "      torch.build: https://pytorch.org/get-started/locally/\n",
               "      torch.build: https://pytorch.org/get-started/locally/\n"
               "      torch.bulid: https://x.example/\n"),
       "source for absent field 'torch.bulid'"},
      {replace(v, "      torch.build: https://pytorch.org/get-started/locally/",
               "      torch.build: pytorch.org"),
       "must be an https URL"},
      // access
      {replace(v, "essential: [/dev/nvidiactl, /dev/nvidia-uvm]", "essential: [/dev/nvidia0]"),
       "essential: '/dev/nvidia0' is not one of the vendor's shared device nodes"},
      {replace(v, "essential: [/dev/nvidiactl, /dev/nvidia-uvm]", "essential: /dev/nvidiactl"),
       "v.yaml:"},
      {replace(v, "      group: HwHiAiUser", "      gruop: HwHiAiUser"),
       "unknown key 'gruop' (did you mean 'group'?)"},
      {replace(v, "      group: HwHiAiUser", "      group: \"Hw Hi\""), "is not a group name"},
      {replace(v, "      group: HwHiAiUser", "      group: \"\""), "is not a group name"},
      {replace(v, "      fix: \"sudo nvidia-modprobe", "      fix: \"\"\n      x: \"sudo"),
       "unknown key 'x'"},
      {replace(v, "      fix: \"sudo nvidia-modprobe -u -c=0 ",
               "      fix: \"sudo nvidia-modprobe\\n -u -c=0 "),
       "fix: one line of text"},
      {replace(v, "    access:\n      essential: [/dev/nvidiactl, /dev/nvidia-uvm]\n",
               "    access:\n"),
       "v.yaml:"},
      {replace(v, "      access: https://docs.nvidia.com/cuda/",
               "      axcess: https://docs.nvidia.com/cuda/"),
       "no source for field 'access'"},
      // kmsg
      {replace(v, "    kmsg:\n      starts: [\"NVRM:\"]\n      contains: [nvidia-nvswitch]",
               "    kmsg: {}"),
       "kmsg: needs starts or contains"},
      {replace(v, "starts: [\"NVRM:\"]", "starts: [\"N\"]"), "shorter than 3 characters"},
      {replace(v, "starts: [\"NVRM:\"]", "begins: [\"NVRM:\"]"), "unknown key 'begins'"},
      // container.toolkit
      {replace(v, "        files: [/usr/bin/amd-ctk, /usr/bin/amd-container-runtime]",
               "        files: []"),
       "toolkit files: must not be empty"},
      {replace(v, "files: [/usr/bin/habana-container-runtime]", "files: [usr/bin/habana]"),
       "toolkit file 'usr/bin/habana' is not an absolute path"},
      {replace(v, "        name: Ascend Docker Runtime\n", ""), "missing key 'name'"},
      {replace(v, "cdi_generate: \"nvidia-ctk cdi generate --output=\"",
               "cdi_generate: \"nvidia-ctk cdi generate\""),
       "cdi_generate: the command up to its output option"},
      {replace(v, "      container.toolkit: https://gitee.com/ascend/mind-cluster\n", ""),
       "no source for field 'container.toolkit'"},
  };
  for (const auto& c : cases) {
    auto err = load_error(c.text);
    EXPECT_NE(err.find(c.message), std::string::npos)
        << "want '" << c.message << "', got '" << err << "'";
  }
}

TEST(Registry, PythonTableIsTheRegistrys) {
  // python/anygpu/_registry.py is what registry_compile writes for the registry this binary
  // carries; a vendor added or changed in data/vendors.yaml needs `make registry-python`.
  auto want = emit_registry_python(Registry::builtin());
  ASSERT_TRUE(want) << want.error().message;
  EXPECT_EQ(slurp(test::source_dir() + "/python/anygpu/_registry.py"), *want)
      << "python/anygpu/_registry.py is stale: run `make registry-python`";
}

TEST(Registry, PythonTableRejectsVendorsThatDisagreeOnADevice) {
  // Two vendors on torch's "cuda" device with different distributed backends: which one the
  // Python layer would pick is undefined, so the registry compiler refuses.
  auto text = replace(data("vendors.yaml"),
                      "torch: {device: cuda, package: torch, backend: nccl, build: rocm}",
                      "torch: {device: cuda, package: torch, backend: rccl, build: rocm}");
  auto loaded = load_registry(text, "v.yaml", data("devices.yaml"), "d.yaml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto py = emit_registry_python((*loaded)->registry());
  ASSERT_FALSE(py);
  EXPECT_EQ(py.error().message,
            "torch device 'cuda': vendor amd names package 'torch' and backend 'rccl', vendor "
            "nvidia 'torch' and 'nccl'");
}

}  // namespace anygpu
