// SR-IOV on the Intel Flex fixture (one card with 4 VFs enabled, two on the host's i915 and two
// handed to vfio-pci, one card with none), then copies whose SR-IOV files lie: a warning naming
// the file, and the function keeps the facts of a plain PCI function.
#include <gtest/gtest.h>

#include <string>

#include "select/select.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu::test {
namespace {

const std::string kPf = "0000:4d:00.0";
const std::string kPfDir = "/sys/bus/pci/devices/0000:4d:00.0";

std::string warnings_of(const Inventory& inv) {
  std::string out;
  for (const auto& w : inv.diagnostics.warnings()) out += w + "\n";
  return out;
}

bool warned(const Inventory& inv, const std::string& needle) {
  return warnings_of(inv).find(needle) != std::string::npos;
}

class LyingHost {
 public:
  LyingHost() : root_(tmp_ / "root") { copy_tree(fixture_host("intel-flex-sriov"), root_); }
  void write(const std::string& host_path, const std::string& text) {
    write_file(root_ + host_path, text);
  }
  void link(const std::string& host_path, const std::string& target) {
    make_symlink(target, root_ + host_path);
  }
  Inventory probe() const { return probe_root(root_); }

 private:
  TempDir tmp_;
  std::string root_;
};

TEST(Sriov, VirtualFunctionsNameTheirPhysicalFunction) {
  const auto& inv = fixture_inventory("intel-flex-sriov");
  EXPECT_TRUE(inv.diagnostics.warnings().empty()) << warnings_of(inv);
  ASSERT_EQ(inv.devices.size(), 6u);
  const auto* pf = find_device(inv, kPf);
  ASSERT_NE(pf, nullptr);
  ASSERT_TRUE(pf->sriov);
  EXPECT_EQ(pf->sriov->total_vfs, 31);
  EXPECT_EQ(pf->sriov->num_vfs, 4);
  EXPECT_FALSE(pf->physfn);
  EXPECT_TRUE(pf->lends_to_vfs());
  for (int f = 1; f <= 4; ++f) {
    const auto* vf = find_device(inv, "0000:4d:00." + std::to_string(f));
    ASSERT_NE(vf, nullptr);
    EXPECT_EQ(vf->physfn, kPf);
    EXPECT_FALSE(vf->sriov);
    // The guests' VFs belong to vfio-pci: the host's runtime cannot see them.
    EXPECT_EQ(vf->status, f <= 2 ? DeviceStatus::ok : DeviceStatus::passthrough);
  }
  // Capable of SR-IOV but with no VF enabled: a plain device, as before.
  const auto* other = find_device(inv, "0000:cb:00.0");
  ASSERT_NE(other, nullptr);
  EXPECT_FALSE(other->sriov);
  EXPECT_FALSE(other->physfn);
}

TEST(Sriov, PhysfnPointingNowhereIsAWarning) {
  LyingHost h;
  std::string link = "/sys/bus/pci/devices/0000:4d:00.1/physfn";
  h.link(link, "../0000:4d:07.7");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, link + ": points to '../0000:4d:07.7', which is no other PCI function"))
      << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, "0000:4d:00.1")->physfn);
  EXPECT_EQ(find_device(inv, "0000:4d:00.2")->physfn, kPf);  // the others keep theirs
}

TEST(Sriov, PhysfnPointingAtItselfOrAtNoAddressIsAWarning) {
  for (const char* target : {"../0000:4d:00.1", "../../../power"}) {
    SCOPED_TRACE(target);
    LyingHost h;
    std::string link = "/sys/bus/pci/devices/0000:4d:00.1/physfn";
    h.link(link, target);
    auto inv = h.probe();
    EXPECT_TRUE(warned(inv, link + ": points to")) << warnings_of(inv);
    EXPECT_FALSE(find_device(inv, "0000:4d:00.1")->physfn);
  }
}

TEST(Sriov, MoreVfsThanTotalIsAWarning) {
  LyingHost h;
  h.write(kPfDir + "/sriov_numvfs", "40\n");
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, kPfDir +
                              "/sriov_numvfs: 40 virtual functions enabled, more than the "
                              "31 of " +
                              kPfDir + "/sriov_totalvfs; SR-IOV left out"))
      << warnings_of(inv);
  EXPECT_FALSE(find_device(inv, kPf)->sriov);
}

TEST(Sriov, UnreadableCountsAreWarnings) {
  {
    LyingHost h;
    h.write(kPfDir + "/sriov_numvfs", "four\n");
    auto inv = h.probe();
    EXPECT_TRUE(warned(inv, kPfDir + "/sriov_numvfs: invalid virtual function count 'four'"))
        << warnings_of(inv);
    EXPECT_FALSE(find_device(inv, kPf)->sriov);
  }
  {
    LyingHost h;
    h.write(kPfDir + "/sriov_totalvfs", "70000\n");  // the register is 16 bits wide
    auto inv = h.probe();
    EXPECT_TRUE(warned(inv, kPfDir + "/sriov_totalvfs: invalid virtual function count '70000'"))
        << warnings_of(inv);
    EXPECT_FALSE(find_device(inv, kPf)->sriov);
  }
}

TEST(Sriov, CountWithoutItsLinksIsAWarningButStays) {
  LyingHost h;
  h.write(kPfDir + "/sriov_numvfs", "3\n");  // four virtfn links remain
  auto inv = h.probe();
  EXPECT_TRUE(warned(inv, kPfDir + "/sriov_numvfs: 3 virtual functions enabled, but"))
      << warnings_of(inv);
  ASSERT_TRUE(find_device(inv, kPf)->sriov);
  EXPECT_EQ(find_device(inv, kPf)->sriov->num_vfs, 3);
}

std::string env(const Selection& s, const std::string& name) {
  for (const auto& [k, v] : s.env)
    if (k == name) return v;
  return "(unset)";
}

AcceleratorConfig config(const std::string& text) {
  auto c = parse_accelerator_config(text, "accelerator-config.yaml");
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? *c : AcceleratorConfig{};
}

// The PF lends its memory and engines to its VFs: the VFs are the units (docs/select.md).
TEST(Sriov, PhysicalFunctionWithVfsIsNotSelected) {
  const auto& inv = fixture_inventory("intel-flex-sriov");
  auto all = select_devices(inv, config("devices: 3\n"), {});
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(env(*all, "ZE_AFFINITY_MASK"), "1,2,3");  // VFs 4d:00.1, 4d:00.2 and card cb:00.0
  EXPECT_NE(join(all->reasons, "\n")
                .find("skipped intel 0 (0000:4d:00.0): physical function of "
                      "4 SR-IOV virtual functions"),
            std::string::npos)
      << join(all->reasons, "\n");
  // Only three units are eligible: four is not there (the CPU, as for any count not met).
  auto four = select_devices(inv, config("devices: 4\n"), {});
  ASSERT_TRUE(four.ok()) << four.error().message;
  EXPECT_EQ(four->vendor, "cpu");
  auto listed = select_devices(inv, config("devices: [0]\n"), {});
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.error().message.find("SR-IOV virtual functions enabled"), std::string::npos)
      << listed.error().message;
  auto vf = select_devices(inv, config("devices: [\"0000:4d:00.2\"]\n"), {});
  ASSERT_TRUE(vf.ok()) << vf.error().message;
  EXPECT_EQ(env(*vf, "ZE_AFFINITY_MASK"), "2");
}

}  // namespace
}  // namespace anygpu::test
