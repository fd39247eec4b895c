// Facts each fixture host must yield, asserted one by one (the goldens in expected.json pin
// the whole document; these say which facts matter and why).
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "probe/probe.h"
#include "test_support.h"

namespace anygpu {

namespace {
Inventory host(const char* name) {
  return test::probe_root(test::fixture_host(name));
}
std::vector<std::string> bus_ids(const Inventory& inv, const char* vendor) {
  std::vector<std::string> out;
  for (const auto* d : inv.of_vendor(vendor)) out.push_back(d->pci.address.str());
  return out;
}
}  // namespace

TEST(FixtureHosts, H100ServerIgnoresBmcAndNic) {
  auto inv = host("h100-8x");
  ASSERT_EQ(inv.devices.size(), 8u);  // the ASPEED VGA, the ConnectX NIC and bridges are not GPUs
  EXPECT_TRUE(inv.diagnostics.warnings().empty());
  for (size_t i = 0; i < 8; ++i) {
    const auto& d = inv.devices[i];
    EXPECT_EQ(d.vendor, "nvidia");
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(d.arch, "sm_90");
    EXPECT_EQ(d.driver->version, "550.90.07");
    EXPECT_EQ(d.pci.link.speed_gts, 32.0);
    EXPECT_EQ(d.pci.link.width, 16);
    EXPECT_EQ(d.numa_node, i < 4 ? 0 : 1);
    EXPECT_EQ(d.cpu_affinity, i < 4 ? "0-55,112-167" : "56-111,168-223");
    EXPECT_EQ(d.device_nodes, std::vector<std::string>{"/dev/nvidia" + std::to_string(i)});
    // The BMC owns card0: card numbers are one ahead of the GPU index.
    EXPECT_EQ(d.card_node, "/dev/dri/card" + std::to_string(i + 1));
    ASSERT_TRUE(d.uuid);
    EXPECT_EQ(d.uuid->rfind("GPU-", 0), 0u);
    EXPECT_FALSE(d.pci.root_complex.empty());
  }
  EXPECT_EQ(bus_ids(inv, "nvidia").front(), "0000:18:00.0");
  ASSERT_EQ(inv.runtimes.size(), 1u);
  EXPECT_EQ(inv.runtimes[0].component, "cuda-driver");
  EXPECT_EQ(inv.runtimes[0].version, "12.4");
}

// One host per /proc/driver/nvidia/version flavour: open module on x86_64 and aarch64, and a
// GRID guest driver. The version is the token the module's own file confirms, never "for".
TEST(FixtureHosts, NvidiaDriverVersionOfEveryModuleFlavour) {
  for (auto [name, version, cuda] : {std::tuple{"nvidia-open-l40s", "560.35.03", "12.6"},
                                     std::tuple{"nvidia-open-aarch64", "580.95.05", "13.0"},
                                     std::tuple{"nvidia-grid-guest", "535.161.08", "12.2"}}) {
    SCOPED_TRACE(name);
    auto inv = host(name);
    ASSERT_EQ(inv.devices.size(), 1u);
    ASSERT_TRUE(inv.devices[0].driver && inv.devices[0].driver->version);
    EXPECT_EQ(*inv.devices[0].driver->version, version);
    ASSERT_EQ(inv.runtimes.size(), 1u);
    EXPECT_EQ(inv.runtimes[0].version, cuda);
    EXPECT_TRUE(inv.diagnostics.warnings().empty());
  }
}

TEST(FixtureHosts, Mi300xMatchesKfdNodesByLocationNotOrder) {
  auto inv = host("mi300x-8x");
  ASSERT_EQ(inv.devices.size(), 8u);  // 0x1022 CPU functions and 0x1002 switch ports ignored
  for (const auto& d : inv.devices) {
    EXPECT_EQ(d.vendor, "amd");
    EXPECT_EQ(d.pci.class_code, 0x120000u);
    EXPECT_EQ(d.arch, "gfx942");
    EXPECT_EQ(d.memory_total_bytes, 206141652992u);  // mem_info_vram_total, not the table
    EXPECT_EQ(d.driver->version, "6.8.5");
    ASSERT_EQ(d.device_nodes.size(), 2u);
    EXPECT_EQ(d.device_nodes[1], *d.render_node);
  }
  // KFD nodes 4 and 5 are swapped relative to bus order; the UUIDs come from each function.
  EXPECT_NE(test::find_device(inv, "0000:46:00.0")->uuid,
            test::find_device(inv, "0000:65:00.0")->uuid);
  EXPECT_EQ(inv.runtimes.at(0).component, "rocm");
  EXPECT_EQ(inv.runtimes.at(0).version, "6.2.4");
}

TEST(FixtureHosts, IntelI915AndXe) {
  auto inv = host("intel-max-arc");
  ASSERT_EQ(inv.devices.size(), 3u);
  const auto* arc = test::find_device(inv, "0000:06:00.0");
  ASSERT_NE(arc, nullptr);
  EXPECT_EQ(arc->driver->name, "xe");
  EXPECT_FALSE(arc->driver->version);  // in-tree: no module version file, so absent
  EXPECT_EQ(arc->index, 0);
  EXPECT_EQ(test::find_device(inv, "0000:29:00.0")->driver->name, "i915");
  EXPECT_EQ(test::find_device(inv, "0000:9a:00.0")->index, 2);
  bool level_zero =
      std::any_of(inv.runtimes.begin(), inv.runtimes.end(), [](const RuntimeComponent& r) {
        return r.component == "level-zero" && r.version == "1.17.6";
      });
  EXPECT_TRUE(level_zero);
}

TEST(FixtureHosts, AscendNodesFollowThePhysicalId) {
  auto inv = host("ascend-910b-8x");
  ASSERT_EQ(inv.devices.size(), 8u);  // the Hi1822 NIC shares vendor 0x19e5 but not the class
  EXPECT_EQ(inv.host.arch, "aarch64");
  const auto* first = test::find_device(inv, "0000:01:00.0");
  EXPECT_EQ(first->index, 0);
  EXPECT_EQ(first->device_nodes, std::vector<std::string>{"/dev/davinci4"});
  EXPECT_EQ(first->driver->version, "24.1.rc2");
  EXPECT_EQ(inv.runtimes.at(0).component, "cann");
}

TEST(FixtureHosts, MixedWorkstationIndexesPerVendor) {
  auto inv = host("workstation-mixed");
  ASSERT_EQ(inv.devices.size(), 2u);  // both HDMI audio functions ignored
  EXPECT_EQ(inv.devices[0].vendor, "nvidia");
  EXPECT_EQ(inv.devices[0].index, 0);
  EXPECT_EQ(inv.devices[1].vendor, "amd");
  EXPECT_EQ(inv.devices[1].index, 0);
  EXPECT_EQ(inv.devices[1].arch, "gfx1100");
  EXPECT_FALSE(inv.devices[0].numa_node);  // numa_node -1: absent, not 0 or -1
}

TEST(FixtureHosts, LaptopSuspendedGpuIsNotWoken) {
  auto inv = host("laptop-hybrid");
  ASSERT_EQ(inv.devices.size(), 2u);
  const auto* dgpu = test::find_device(inv, "0000:01:00.0");
  EXPECT_EQ(dgpu->status, DeviceStatus::suspended);
  EXPECT_FALSE(dgpu->pci.link.speed_gts);  // link registers are not read
  EXPECT_EQ(dgpu->device_nodes, std::vector<std::string>{"/dev/nvidia0"});
  EXPECT_EQ(test::find_device(inv, "0000:00:02.0")->status, DeviceStatus::ok);
  // Even with libraries allowed, nothing is loaded for a vendor whose only GPU sleeps.
  auto with_libs = test::probe_root(test::fixture_host("laptop-hybrid"), true);
  EXPECT_TRUE(std::none_of(with_libs.libraries.begin(), with_libs.libraries.end(),
                           [](const LibraryReport& r) { return r.vendor == "nvidia"; }));
}

TEST(FixtureHosts, CloudVmHasNone) {
  auto inv = host("cloud-vm-none");
  EXPECT_TRUE(inv.devices.empty());
  EXPECT_TRUE(inv.runtimes.empty());
  EXPECT_EQ(inv.host.cpus, 4);
}

TEST(FixtureHosts, HygonDcuIsACoprocessorClass) {
  auto inv = host("hygon-dcu");
  ASSERT_EQ(inv.devices.size(), 2u);  // chipset functions with the same vendor id ignored
  for (const auto& d : inv.devices) {
    EXPECT_EQ(d.vendor, "hygon");
    EXPECT_EQ(d.pci.class_code >> 8, 0x0b40u);
    EXPECT_EQ(d.arch, "gfx928");
  }
}

TEST(FixtureHosts, ThisMachine) {
  HostRoot here(HostOptions{});
  auto inv = probe(here);
  ASSERT_TRUE(inv.host.cpus);
  EXPECT_GT(*inv.host.cpus, 0);
  EXPECT_TRUE(inv.host.kernel);
}

}  // namespace anygpu
