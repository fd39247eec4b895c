// gres.conf from fixture hosts: one line per device, the right node per vendor, Cores= as
// logical core indices from sysfs topology (left out, with a note, when there is none).
#include <gtest/gtest.h>

#include <cctype>

#include "cluster/gres.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {
std::vector<std::string> files(const std::vector<GresLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.file);
  return out;
}
}  // namespace

TEST(Gres, NodePerVendor) {
  auto nv = gres_lines(test::fixture_inventory("h100-8x"), nullptr);
  ASSERT_EQ(nv.size(), 8u);
  EXPECT_EQ(nv[0].file, "/dev/nvidia0");
  EXPECT_EQ(nv[0].type, "h100");
  auto amd = gres_lines(test::fixture_inventory("mi300x-8x"), nullptr);
  ASSERT_EQ(amd.size(), 8u);
  EXPECT_EQ(amd[0].file, "/dev/dri/renderD128");
  EXPECT_EQ(amd[0].type, "mi300x");
  auto ascend = gres_lines(test::fixture_inventory("ascend-910b-8x"), nullptr);
  ASSERT_EQ(ascend.size(), 8u);
  EXPECT_EQ(ascend[0].file, "/dev/davinci4");  // physical id, not PCI order
  EXPECT_EQ(ascend[0].type, "ascend910b");
  auto intel = gres_lines(test::fixture_inventory("intel-max-arc"), nullptr);
  EXPECT_EQ(files(intel)[0], "/dev/dri/renderD130");
  EXPECT_EQ(intel[0].type, "a770");
  EXPECT_EQ(intel[1].type, "max_1550");
  auto hygon = gres_lines(test::fixture_inventory("hygon-dcu"), nullptr);
  EXPECT_EQ(files(hygon), (std::vector<std::string>{"/dev/dri/renderD128", "/dev/dri/renderD129"}));
  auto mixed = gres_lines(test::fixture_inventory("workstation-mixed"), nullptr);
  EXPECT_EQ(files(mixed), (std::vector<std::string>{"/dev/nvidia0", "/dev/dri/renderD128"}));
  EXPECT_EQ(mixed[0].type, "rtx_4090");
}

// gres.conf(5): AMD-class lines carry Flags=amd_gpu_env (Slurm then sets only
// ROCR_VISIBLE_DEVICES, as its own RSMI AutoDetect does: gpu_rsmi.c, GRES_CONF_ENV_RSMI).
TEST(Gres, AmdClassLinesCarryAmdGpuEnv) {
  for (const char* host : {"mi300x-8x", "hygon-dcu"}) {
    auto text = gres_conf(gres_lines(test::fixture_inventory(host), nullptr), "n1", "");
    for (auto line : split_lines(text)) {
      if (line.rfind("Name=gpu", 0) == 0) {
        EXPECT_TRUE(line.ends_with(" Flags=amd_gpu_env")) << host << ": " << line;
      }
    }
  }
  auto mixed =
      gres_conf(gres_lines(test::fixture_inventory("workstation-mixed"), nullptr), "n1", "");
  EXPECT_NE(mixed.find("Name=gpu Type=rtx_4090 File=/dev/nvidia0\n"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("File=/dev/dri/renderD128 Flags=amd_gpu_env\n"), std::string::npos) << mixed;
}

TEST(Gres, ConfTextHasAutoDetectOffAndTheSlurmConfHint) {
  auto lines = gres_lines(test::fixture_inventory("h100-8x"), nullptr);
  auto text = gres_conf(lines, "n1", "Cores= left out: no topology");
  EXPECT_NE(text.find("\nAutoDetect=off\n"), std::string::npos);
  EXPECT_NE(text.find("\nName=gpu Type=h100 File=/dev/nvidia0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# Cores= left out: no topology\n"), std::string::npos);
  EXPECT_NE(text.find("NodeName=n1 Gres=gpu:h100:8\n"), std::string::npos) << text;
  // Every non-comment line is a key=value gres.conf line.
  for (auto line : split_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_TRUE(line == "AutoDetect=off" || line.rfind("Name=gpu Type=", 0) == 0) << line;
  }
}

TEST(Gres, CoresAreLogicalCoreIndices) {
  // Two packages of 56 cores with two threads each, numbered as Linux does on Intel servers:
  // CPUs 0-55 package 0, 56-111 package 1, then their siblings 112-167 and 168-223.
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  test::write_file(root + "/sys/devices/system/cpu/online", "0-223\n");
  for (int cpu = 0; cpu < 224; ++cpu) {
    auto dir = root + "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    test::write_file(dir + "physical_package_id", std::to_string((cpu % 112) / 56) + "\n");
    test::write_file(dir + "die_id", "0\n");
    test::write_file(dir + "core_id", std::to_string(cpu % 56) + "\n");
  }
  HostOptions o;
  o.root = root;
  HostRoot host(o);
  auto map = read_core_map(host);
  ASSERT_TRUE(map) << map.error().message;
  auto inv = test::probe_root(root);
  auto lines = gres_lines(inv, &*map);
  ASSERT_EQ(lines.size(), 8u);
  ASSERT_TRUE(lines[0].cores);
  EXPECT_EQ(*lines[0].cores, "0-55");  // local_cpulist 0-55,112-167
  ASSERT_TRUE(lines[7].cores);
  EXPECT_EQ(*lines[7].cores, "56-111");  // local_cpulist 56-111,168-223

  // A topology file gone: no map at all rather than a wrong one.
  ASSERT_EQ(::unlink((root + "/sys/devices/system/cpu/cpu7/topology/core_id").c_str()), 0);
  EXPECT_FALSE(read_core_map(HostRoot(o)));
  test::write_file(root + "/sys/devices/system/cpu/cpu7/topology/core_id", "seven\n");
  auto bad = read_core_map(HostRoot(o));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("core_id: not a number"), std::string::npos);
}

TEST(Gres, FixturesWithoutTopologyHaveNoCoreMap) {
  HostOptions o;
  o.root = test::fixture_host("h100-8x");
  EXPECT_FALSE(read_core_map(HostRoot(o)));
}

TEST(Gres, TypeFromNameArchOrVendor) {
  Device d;
  d.vendor = "cambricon";
  EXPECT_EQ(gres_type(d), "cambricon");
  d.arch = "MLU370";
  EXPECT_EQ(gres_type(d), "mlu370");
  d.name = "Cambricon MLU370-X8 (rev 2)";
  EXPECT_EQ(gres_type(d), "mlu370-x8");
}

// gres.conf(5): with AutoDetect on, "the Type specified should match or be a substring of the
// value that is detected, using an underscore in lieu of any spaces" (SchedMD/slurm@284c3b95f0
// doc/man/man5/gres.conf.5, lines 419-421); the detected value is the device name lower-cased
// with spaces made underscores (gpu_common_underscorify_tolower, src/plugins/gpu/common/
// gpu_common.c). So the short Type anygpu writes stays valid if a site turns AutoDetect on.
TEST(Gres, TypeIsASubstringOfWhatSlurmAutoDetectWouldName) {
  auto slurm_name = [](std::string name) {
    for (auto& c : name) c = c == ' ' ? '_' : static_cast<char>(std::tolower(c));
    return name;
  };
  int checked = 0;
  for (const char* host : {"h100-8x", "mi300x-8x", "ascend-910b-8x", "intel-max-arc", "hygon-dcu",
                           "laptop-hybrid", "workstation-mixed", "nvidia-open-l40s",
                           "nvidia-open-aarch64", "nvidia-grid-guest", "thead-ppu-4x"}) {
    for (const auto& d : test::fixture_inventory(host).devices) {
      if (!d.name) continue;
      EXPECT_NE(slurm_name(*d.name).find(gres_type(d)), std::string::npos)
          << host << ": Type=" << gres_type(d) << " for '" << *d.name << "'";
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
  Device d;
  d.vendor = "nvidia";
  d.name = "NVIDIA GeForce RTX 4090";  // joined words keep Slurm's underscore
  EXPECT_EQ(gres_type(d), "rtx_4090");
  d.name = "Cambricon MLU370-X8 (rev 2)";
  EXPECT_NE(slurm_name(*d.name).find(gres_type(d)), std::string::npos);
}

}  // namespace anygpu
