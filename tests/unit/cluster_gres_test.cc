// gres.conf from fixture hosts: one line per device, the right node per vendor, Cores= as
// logical core indices from sysfs topology (left out, with a note, when there is none).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>

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

// The Flags= of each line of a gres.conf text.
std::vector<std::string> flags_of(const std::string& text) {
  std::vector<std::string> out;
  for (auto line : split_lines(text)) {
    if (!line.starts_with("Name=gpu")) continue;
    auto at = line.find(" Flags=");
    out.push_back(at == std::string_view::npos ? "" : std::string(line.substr(at + 7)));
  }
  return out;
}

// gres.conf(5) environment flags from the registry (slurm.gres_flags): CUDA_VISIBLE_DEVICES
// alone for NVIDIA, ROCR_VISIBLE_DEVICES alone for the ROCm runtimes (with CUDA_ as well ROCm
// finds no GPU), ZE_AFFINITY_MASK for Intel, nothing for vendors Slurm has no variable for.
TEST(Gres, EnvironmentFlagsFromTheRegistry) {
  struct Case {
    const char* host;
    std::string flags;
  };
  for (const auto& c : {Case{"h100-8x", "nvidia_gpu_env"}, Case{"mi300x-8x", "amd_gpu_env"},
                        Case{"hygon-dcu", "amd_gpu_env"}, Case{"intel-max-arc", "intel_gpu_env"},
                        Case{"ascend-910b-8x", "no_gpu_env"}}) {
    auto lines = gres_lines(test::fixture_inventory(c.host), nullptr);
    auto got = flags_of(gres_conf(lines, "n1", {}));
    ASSERT_FALSE(got.empty()) << c.host;
    for (const auto& f : got) EXPECT_EQ(f, c.flags) << c.host;
    EXPECT_EQ(gres_flags_note(lines), "") << c.host;
  }
}

// slurmd takes one set of environment flags per node and GRES name: a node whose vendors want
// different ones gets no_gpu_env on every line, and says why.
TEST(Gres, MixedNodesCarryOneSetOfFlags) {
  for (const char* host : {"workstation-mixed", "laptop-hybrid"}) {
    auto lines = gres_lines(test::fixture_inventory(host), nullptr);
    auto note = gres_flags_note(lines);
    auto text = gres_conf(lines, "n1", {note});
    EXPECT_EQ(flags_of(text), std::vector<std::string>(lines.size(), "no_gpu_env")) << text;
    EXPECT_NE(note.find("nvidia nvidia_gpu_env"), std::string::npos) << note;
    EXPECT_NE(text.find("# Flags=no_gpu_env: this node's GPUs want different variables"),
              std::string::npos)
        << text;
  }
  auto mixed = gres_flags_note(gres_lines(test::fixture_inventory("workstation-mixed"), nullptr));
  EXPECT_NE(mixed.find("(amd amd_gpu_env, nvidia nvidia_gpu_env)"), std::string::npos) << mixed;
}

// Whatever the host, one Flags= value for all its lines (the rule slurmd enforces); the real
// slurmd -G reads every fixture's file in tests/e2e/slurm_gres_fixtures_test.sh.
TEST(Gres, EveryFixtureHostHasOneFlagsValue) {
  size_t hosts = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() + "/tests/hosts")) {
    if (!e.is_directory()) continue;
    auto lines = gres_lines(test::probe_root(e.path().string()), nullptr);
    std::set<std::string> flags;
    for (const auto& l : lines) flags.insert(l.flags);
    EXPECT_LE(flags.size(), 1u) << e.path();
    ++hosts;
  }
  EXPECT_GE(hosts, 10u);
}

TEST(Gres, ConfTextHasAutoDetectOffAndTheSlurmConfHint) {
  auto lines = gres_lines(test::fixture_inventory("h100-8x"), nullptr);
  auto text = gres_conf(lines, "n1", {"Cores= left out: no topology"});
  EXPECT_NE(text.find("\nAutoDetect=off\n"), std::string::npos);
  EXPECT_NE(text.find("\nName=gpu Type=h100 File=/dev/nvidia0 Flags=nvidia_gpu_env\n"),
            std::string::npos)
      << text;
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
