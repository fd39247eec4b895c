// Device selection across the fixture hosts: policies, counts, NUMA preference, lists, the
// environment per vendor, CPU fallback and explicit backends that match nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "select/select.h"
#include "test_support.h"

namespace anygpu {

namespace {

const Inventory& host(const std::string& name) {
  return test::fixture_inventory(name);
}

AcceleratorConfig config(const std::string& text) {
  auto c = parse_accelerator_config(text, "accelerator-config.yaml");
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? *c : AcceleratorConfig{};
}

Selection pick(const std::string& host_name, const std::string& text, SelectInputs in = {}) {
  auto s = select_devices(host(host_name), config(text), in);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : Selection{};
}

std::map<std::string, std::string> env_map(const Selection& s) {
  return {s.env.begin(), s.env.end()};
}

std::vector<std::string> bus_ids(const Selection& s) {
  std::vector<std::string> out;
  for (const auto& d : s.devices) out.push_back(d.pci.address.str());
  return out;
}

std::string reasons(const Selection& s) {
  std::string out;
  for (const auto& r : s.reasons) out += r + "\n";
  return out;
}

}  // namespace

TEST(SelectPolicy, NvidiaAllDevices) {
  auto s = pick("h100-8x", "");
  EXPECT_EQ(s.vendor, "nvidia");
  EXPECT_EQ(s.backend, "cuda");
  EXPECT_EQ(s.torch_device, "cuda");
  EXPECT_EQ(s.dist_backend, "nccl");
  ASSERT_EQ(s.devices.size(), 8u);
  auto e = env_map(s);
  EXPECT_EQ(e["CUDA_VISIBLE_DEVICES"], "0,1,2,3,4,5,6,7");
  EXPECT_EQ(e["CUDA_DEVICE_ORDER"], "PCI_BUS_ID");
  EXPECT_EQ(e["ANYGPU_VENDOR"], "nvidia");
  EXPECT_EQ(e["ANYGPU_BACKEND"], "cuda");
  EXPECT_EQ(e["ANYGPU_TORCH_DEVICE"], "cuda");
  EXPECT_EQ(e["ANYGPU_DIST_BACKEND"], "nccl");
  EXPECT_EQ(e["ANYGPU_DEVICES"],
            "0000:18:00.0,0000:2a:00.0,0000:3a:00.0,0000:5d:00.0,"
            "0000:9a:00.0,0000:ab:00.0,0000:ba:00.0,0000:db:00.0");
  // 224 CPUs local to all eight, one process per device.
  EXPECT_EQ(e["ANYGPU_NUM_WORKERS"], "28");
  // The SPEC's order: identity, devices, then the vendor's own variables.
  ASSERT_EQ(s.env.size(), 8u);
  EXPECT_EQ(s.env[0].first, "ANYGPU_VENDOR");
  EXPECT_EQ(s.env[5].first, "ANYGPU_NUM_WORKERS");
  EXPECT_EQ(s.env[7].first, "CUDA_VISIBLE_DEVICES");
}

TEST(SelectPolicy, TwoOnH100ShareANumaNodeAndSayWhy) {
  auto s = pick("h100-8x", "devices: 2\n");
  EXPECT_EQ(bus_ids(s), (std::vector<std::string>{"0000:18:00.0", "0000:2a:00.0"}));
  ASSERT_TRUE(s.devices[0].numa_node && s.devices[1].numa_node);
  EXPECT_EQ(*s.devices[0].numa_node, *s.devices[1].numa_node);
  auto why = reasons(s);
  EXPECT_NE(why.find("chose 2 of 8 eligible nvidia devices on NUMA node 0"), std::string::npos)
      << why;
  EXPECT_NE(why.find("share a NUMA node"), std::string::npos) << why;
  auto e = env_map(s);
  EXPECT_EQ(e["CUDA_VISIBLE_DEVICES"], "0,1");
  // Node 0 has 112 CPUs; two processes share them.
  EXPECT_EQ(e["ANYGPU_NUM_WORKERS"], "56");
}

TEST(SelectPolicy, FiveOnH100SpanTwoNodesFullestFirst) {
  auto s = pick("h100-8x", "devices: 5\n");
  ASSERT_EQ(s.devices.size(), 5u);
  EXPECT_EQ(env_map(s)["CUDA_VISIBLE_DEVICES"], "0,1,2,3,4");
  EXPECT_NE(reasons(s).find("no single NUMA node has 5"), std::string::npos) << reasons(s);
}

TEST(SelectPolicy, AscendPrefersASharedRootComplex) {
  auto s = pick("ascend-910b-8x", "devices: 2\n");
  EXPECT_EQ(s.vendor, "ascend");
  EXPECT_EQ(s.torch_device, "npu");
  EXPECT_EQ(s.dist_backend, "hccl");
  EXPECT_EQ(bus_ids(s), (std::vector<std::string>{"0000:01:00.0", "0000:02:00.0"}));
  EXPECT_NE(reasons(s).find("behind PCI root complex pci0000:00"), std::string::npos) << reasons(s);
  auto e = env_map(s);
  EXPECT_EQ(e["ASCEND_RT_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(e["ANYGPU_NUM_WORKERS"], "24");  // 48 CPUs on node 0 / 2
  EXPECT_EQ(e.count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(SelectPolicy, AmdSetsExactlyOneVisibleDevicesVariable) {
  auto s = pick("mi300x-8x", "backend: rocm\ndevices: 4\n");
  EXPECT_EQ(s.vendor, "amd");
  EXPECT_EQ(s.backend, "rocm");
  EXPECT_EQ(s.torch_device, "cuda");
  EXPECT_EQ(s.dist_backend, "nccl");
  auto e = env_map(s);
  EXPECT_EQ(e["HIP_VISIBLE_DEVICES"], "0,1,2,3");
  EXPECT_EQ(e.count("ROCR_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(e.count("CUDA_VISIBLE_DEVICES"), 0u);
  int visible = 0;
  for (const auto& [k, v] : s.env) visible += k.find("VISIBLE") != std::string::npos;
  EXPECT_EQ(visible, 1);
  EXPECT_EQ(e["ANYGPU_NUM_WORKERS"], "24");  // 96 CPUs on node 0 / 4
}

TEST(SelectPolicy, IntelUsesZeAffinityMask) {
  auto s = pick("intel-max-arc", R"(device_selection_policy:
  - priority: 1
    criteria: [{type: gpu_compute_capability, equals: xe-hpc}]
)");
  EXPECT_EQ(s.vendor, "intel");
  EXPECT_EQ(s.torch_device, "xpu");
  // Each Max 1550 is two tiles, each a device of its own to Level Zero's default FLAT
  // hierarchy, numbered after the Arc card (0).
  EXPECT_EQ(bus_ids(s), (std::vector<std::string>{"0000:29:00.0", "0000:29:00.0", "0000:9a:00.0",
                                                  "0000:9a:00.0"}));
  EXPECT_EQ(env_map(s)["ZE_AFFINITY_MASK"], "1,2,3,4");
  EXPECT_EQ(env_map(s)["ZE_FLAT_DEVICE_HIERARCHY"], "FLAT");
}

TEST(SelectPolicy, BusIdAndIndexLists) {
  auto a = pick("h100-8x", "devices: [0000:9a:00.0, 0000:db:00.0]\n");
  EXPECT_EQ(env_map(a)["CUDA_VISIBLE_DEVICES"], "4,7");
  EXPECT_EQ(env_map(a)["ANYGPU_DEVICES"], "0000:9a:00.0,0000:db:00.0");
  auto b = pick("h100-8x", "devices: [6, 2]\n");
  EXPECT_EQ(bus_ids(b), (std::vector<std::string>{"0000:3a:00.0", "0000:ba:00.0"}));
  EXPECT_EQ(env_map(b)["CUDA_VISIBLE_DEVICES"], "2,6");
  auto c = pick("mi300x-8x", "devices: [c6:00.0]\n");
  EXPECT_EQ(env_map(c)["HIP_VISIBLE_DEVICES"], "6");
  // A listed device that does not exist is exit 3, with auto too (never the CPU) …
  auto d = select_devices(host("h100-8x"), config("devices: [0000:01:00.0]\n"), {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::host);
  EXPECT_NE(d.error().message.find("no device 0000:01:00.0 on this host"), std::string::npos);
  // … and with an explicit backend.
  auto e = select_devices(host("h100-8x"), config("backend: cuda\ndevices: [9]\n"), {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::host);
}

TEST(SelectPolicy, LowestPriorityWins) {
  const char* policy = R"(device_selection_policy:
  - priority: 5
    criteria: [{type: gpu_vendor, equals: amd}]
  - priority: 1
    criteria: [{type: gpu_vendor, equals: nvidia}]
)";
  auto s = pick("workstation-mixed", policy);
  EXPECT_EQ(s.vendor, "nvidia");
  EXPECT_EQ(s.priority, 1);
  auto a = pick("mi300x-8x", policy);  // priority 1 does not hold here
  EXPECT_EQ(a.vendor, "amd");
  EXPECT_EQ(a.priority, 5);
  EXPECT_NE(reasons(a).find("policy priority 5 matched 8 amd devices"), std::string::npos);
}

TEST(SelectPolicy, MixedHostNeverMixesVendors) {
  auto s = pick("workstation-mixed", "");
  EXPECT_EQ(s.vendor, "nvidia");
  ASSERT_EQ(s.devices.size(), 1u);
  auto e = env_map(s);
  EXPECT_EQ(e.count("HIP_VISIBLE_DEVICES"), 0u);
  EXPECT_NE(reasons(s).find("amd: also qualifies, but a process uses one vendor"),
            std::string::npos)
      << reasons(s);
  auto amd = pick("workstation-mixed", "backend: amd\n");
  EXPECT_EQ(env_map(amd)["HIP_VISIBLE_DEVICES"], "0");
  EXPECT_EQ(env_map(amd).count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(env_map(amd)["ANYGPU_NUM_WORKERS"], "32");
}

TEST(SelectPolicy, ComputeCapabilityCriterion) {
  auto rule = [](const std::string& c) {
    return "device_selection_policy:\n  - priority: 1\n    criteria: [" + c + "]\n";
  };
  EXPECT_EQ(pick("h100-8x", rule("{type: gpu_compute_capability, min: sm_80}")).vendor, "nvidia");
  EXPECT_EQ(pick("h100-8x", rule("{type: gpu_compute_capability, min: sm_90}")).vendor, "nvidia");
  EXPECT_EQ(pick("h100-8x", rule("{type: gpu_compute_capability, min: '10.0'}")).vendor, "cpu");
  EXPECT_EQ(pick("h100-8x", rule("{type: gpu_compute_capability, equals: sm_90}")).vendor,
            "nvidia");
  EXPECT_EQ(pick("h100-8x", rule("{type: gpu_compute_capability, equals: sm_80}")).vendor, "cpu");
  EXPECT_EQ(pick("mi300x-8x", rule("{type: gpu_compute_capability, equals: 'gfx94*'}")).vendor,
            "amd");
  EXPECT_EQ(pick("mi300x-8x", rule("{type: gpu_compute_capability, min: sm_80}")).vendor, "cpu");
  // A list across vendors: on the mixed host the RTX (sm_89) and the gfx1100 both qualify.
  auto mixed =
      pick("workstation-mixed", rule("{type: gpu_compute_capability, equals: [gfx1100, sm_90]}"));
  EXPECT_EQ(mixed.vendor, "amd");
}

TEST(SelectPolicy, DriverVersionCriterion) {
  auto rule = [](const std::string& v) {
    return "device_selection_policy:\n  - priority: 1\n    criteria: [{type: driver_version, "
           "min: " +
           v + "}]\n";
  };
  EXPECT_EQ(pick("h100-8x", rule("535.54.03")).vendor, "nvidia");
  EXPECT_EQ(pick("h100-8x", rule("550.90.07")).vendor, "nvidia");
  EXPECT_EQ(pick("h100-8x", rule("550.90.7")).vendor, "nvidia");
  auto s = pick("h100-8x", rule("555.42.02"));
  EXPECT_EQ(s.vendor, "cpu");
  EXPECT_NE(reasons(s).find("driver 550.90.07 is older than 555.42.02"), std::string::npos);
  // Unknown driver version (the Intel xe driver reports none): the criterion does not hold.
  EXPECT_EQ(pick("intel-max-arc", rule("1.0")).vendor, "cpu");
}

TEST(SelectPolicy, MemoryCriterion) {
  auto rule = [](const std::string& v) {
    return "device_selection_policy:\n  - priority: 1\n    criteria: [{type: memory_gb, min: " + v +
           "}]\n";
  };
  EXPECT_EQ(pick("h100-8x", rule("80")).devices.size(), 8u);  // 80 GiB
  EXPECT_EQ(pick("h100-8x", rule("81")).vendor, "cpu");
  // Only the Max 1550 tiles (64 GiB each, half a 128 GiB card) qualify, not the 16 GiB Arc.
  auto intel = pick("intel-max-arc", rule("64"));
  EXPECT_EQ(env_map(intel)["ZE_AFFINITY_MASK"], "1,2,3,4");
  EXPECT_EQ(pick("intel-max-arc", rule("65")).vendor, "cpu");
  // Unknown memory (the laptop iGPU): does not hold.
  EXPECT_EQ(pick("laptop-hybrid", rule("1")).vendor, "cpu");
}

TEST(SelectPolicy, DeviceCountCriterionFallsThroughToTheNextRule) {
  auto s = pick("intel-max-arc", R"(device_selection_policy:
  - priority: 1
    criteria:
      - {type: gpu_compute_capability, equals: xe-hpc}
      - {type: device_count, min: 5}
  - priority: 2
    criteria:
      - {type: gpu_vendor, equals: intel}
      - {type: device_count, min: 5}
)");
  // The two Max 1550 are two tiles each (four xe-hpc units); with the Arc card, five.
  EXPECT_EQ(s.priority, 2);
  EXPECT_EQ(s.devices.size(), 5u);
  EXPECT_NE(reasons(s).find("policy priority 1, intel: needs 5 units, 4 qualify"),
            std::string::npos)
      << reasons(s);
}

TEST(SelectPolicy, GpuVendorCriterion) {
  auto s = pick("laptop-hybrid", R"(device_selection_policy:
  - priority: 1
    criteria: [{type: gpu_vendor, equals: [amd, intel]}]
)");
  EXPECT_EQ(s.vendor, "intel");
  EXPECT_NE(reasons(s).find("nvidia: no device qualifies"), std::string::npos) << reasons(s);
}

// A laptop's runtime-suspended RTX 4070 wakes on first use and is what its owner trains on: it
// outranks the integrated GPU, and discovery still never woke it.
TEST(SelectPolicy, SuspendedDiscreteGpuOutranksIntegratedGraphics) {
  const auto& inv = host("laptop-hybrid");
  const Device* igpu = test::find_device(inv, "0000:00:02.0");
  const Device* dgpu = test::find_device(inv, "0000:01:00.0");
  ASSERT_TRUE(igpu && dgpu);
  EXPECT_TRUE(igpu->integrated);
  EXPECT_FALSE(dgpu->integrated);
  EXPECT_EQ(dgpu->status, DeviceStatus::suspended);
  auto s = pick("laptop-hybrid", "");
  EXPECT_EQ(s.vendor, "nvidia");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].pci.address.str(), "0000:01:00.0");
  EXPECT_NE(reasons(s).find("intel: also qualifies, but a process uses one vendor (nvidia has a "
                            "discrete device"),
            std::string::npos)
      << reasons(s);
  EXPECT_EQ(primary_vendor(inv), "nvidia");
  auto cuda = select_devices(inv, config("backend: cuda\n"), {});
  ASSERT_TRUE(cuda.ok()) << cuda.error().message;
  // Integrated graphics alone still serve: the iGPU when the dGPU is passed through.
  auto passed = inv;
  for (auto& d : passed.devices)
    if (d.vendor == "nvidia") d.status = DeviceStatus::passthrough;
  auto only = select_devices(passed, AcceleratorConfig{}, {});
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->vendor, "intel");
}

// One rule decides the primary vendor: the default selection, and every command that asks
// primary_vendor() (wheel, k8s labels, host-init, doctor's judge), agree on every fixture host.
TEST(SelectPolicy, OnePrimaryVendorOnEveryFixtureHost) {
  size_t hosts = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::fixture_host(""))) {
    if (!e.is_directory()) continue;
    ++hosts;
    auto name = e.path().filename().string();
    const auto& inv = test::fixture_inventory(name);
    auto s = select_devices(inv, AcceleratorConfig{}, {});
    ASSERT_TRUE(s.ok()) << name;
    auto primary = primary_vendor(inv);
    if (s->vendor != "cpu") {
      EXPECT_EQ(primary, s->vendor) << name;
    } else {
      EXPECT_TRUE(primary == "none" || inv.of_vendor(primary).size() > 0) << name;
    }
  }
  EXPECT_GE(hosts, 10u);
}

TEST(SelectPolicy, DriverMissingDevicesAreSkipped) {
  auto inv = host("h100-8x");
  inv.devices[0].status = DeviceStatus::driver_missing;
  auto s = select_devices(inv, config("devices: 1\n"), {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->devices[0].pci.address.str(), "0000:2a:00.0");
}

TEST(SelectPolicy, CpuFallback) {
  for (const char* name : {"cloud-vm-none", "h100-8x"}) {
    auto s = pick(name, std::string(name) == "h100-8x"
                            ? "device_selection_policy:\n  - priority: 1\n    criteria: "
                              "[{type: gpu_vendor, equals: amd}]\n"
                            : "");
    EXPECT_EQ(s.vendor, "cpu") << name;
    EXPECT_TRUE(s.devices.empty());
    auto e = env_map(s);
    EXPECT_EQ(e["ANYGPU_VENDOR"], "cpu");
    EXPECT_EQ(e["ANYGPU_BACKEND"], "cpu");
    EXPECT_EQ(e["ANYGPU_TORCH_DEVICE"], "cpu");
    EXPECT_EQ(e["ANYGPU_DIST_BACKEND"], "gloo");
    EXPECT_EQ(e["ANYGPU_DEVICES"], "");
    EXPECT_EQ(e.count("CUDA_VISIBLE_DEVICES"), 0u);
    EXPECT_NE(reasons(s).find("falling back to the CPU"), std::string::npos);
  }
  EXPECT_EQ(env_map(pick("cloud-vm-none", ""))["ANYGPU_NUM_WORKERS"], "4");
  EXPECT_EQ(pick("h100-8x", "backend: cpu\n").vendor, "cpu");
}

TEST(SelectPolicy, ExplicitBackendWithoutAMatchIsExit3) {
  for (auto [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"cloud-vm-none", "backend: cuda\n"},
           {"h100-8x", "backend: rocm\n"},
           {"h100-8x", "backend: cuda\ndevices: 9\n"},
           {"mi300x-8x",
            "backend: hip\ndevice_selection_policy:\n  - priority: 1\n    criteria: "
            "[{type: memory_gb, min: 500}]\n"}}) {
    auto s = select_devices(host(name), config(text), {});
    ASSERT_FALSE(s.ok()) << name << " " << text;
    EXPECT_EQ(s.error().kind, ErrorKind::host);
    EXPECT_NE(s.error().message.find("no "), std::string::npos);
  }
  auto none = select_devices(host("cloud-vm-none"), config("backend: cuda\n"), {});
  EXPECT_NE(none.error().message.find("this host has no nvidia device"), std::string::npos)
      << none.error().message;
  auto mem = select_devices(host("mi300x-8x"),
                            config("backend: rocm\ndevice_selection_policy:\n  - priority: 1\n"
                                   "    criteria: [{type: memory_gb, min: 500}]\n"),
                            {});
  EXPECT_NE(mem.error().message.find("is less than 500 GiB"), std::string::npos)
      << mem.error().message;
}

TEST(SelectPolicy, WorkersFollowAffinityAndProcesses) {
  SelectInputs in;
  in.processes_per_node = 4;
  // Allowed on CPUs 0-9 and 56-59: only 0-9 are local to node-0 devices.
  for (int i = 0; i < 10; ++i) in.affinity.push_back(i);
  for (int i = 56; i < 60; ++i) in.affinity.push_back(i);
  auto s = pick("h100-8x", "devices: 2\n", in);
  EXPECT_EQ(env_map(s)["ANYGPU_NUM_WORKERS"], "2");  // 10 / 4
  in.affinity = {200};
  auto t = pick("h100-8x", "devices: 2\n", in);
  EXPECT_EQ(env_map(t)["ANYGPU_NUM_WORKERS"], "1");  // none local: at least 1
  in.affinity.clear();
  in.processes_per_node = 1000;
  EXPECT_EQ(env_map(pick("h100-8x", "", in))["ANYGPU_NUM_WORKERS"], "1");
  in.processes_per_node = 1;
  EXPECT_EQ(env_map(pick("cloud-vm-none", "", in))["ANYGPU_NUM_WORKERS"], "4");
}

TEST(SelectPolicy, GaudiUsesModuleIdsAndNoDevicesIsFine) {
  // No Gaudi fixture: a synthetic inventory exercises the registry's variables.
  Inventory inv;
  inv.host.cpus = 16;
  for (int i = 0; i < 2; ++i) {
    Device d;
    d.vendor = "gaudi";
    d.index = i;
    d.pci.address = *PciAddress::parse(i == 0 ? "0000:33:00.0" : "0000:34:00.0");
    d.cpu_affinity = "0-7";
    inv.devices.push_back(d);
  }
  auto s = select_devices(inv, config("backend: hpu\n"), {});
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto e = env_map(*s);
  EXPECT_EQ(e["HABANA_VISIBLE_MODULES"], "0,1");
  EXPECT_EQ(e["ANYGPU_TORCH_DEVICE"], "hpu");
  EXPECT_EQ(e["ANYGPU_DIST_BACKEND"], "hccl");
  EXPECT_EQ(e["ANYGPU_NUM_WORKERS"], "4");
}

}  // namespace anygpu
