// runtime-spec.yaml parsing: every key, and malformed input ending in a located bad_input.
#include <gtest/gtest.h>

#include "contract/spec.h"
#include "test_support.h"

namespace anygpu {
namespace {

ContractSpec parse_ok(const std::string& text) {
  auto s = parse_contract(text, "spec.yaml");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : ContractSpec{};
}

TEST(ContractSpec, EveryKey) {
  auto s = parse_ok(R"(
required_features:
  - gpu_compute_capability: [sm_80, gfx942, gfx94*, "gfx90a:sramecc+:xnack-"]
  - memory_bandwidth_gbps: 2000
  - driver_version_min: 535.54.03
  - vendor: [nvidia, AMD]
  - device_count_min: 2
  - memory_gb_min: 40.5
  - kernel_version_min: "5.15"
dependencies:
  - name: pytorch
    version_range: ">=2.1.0,<2.2.0"
    vendor_agnostic_wheel: true
    full_distribution: true
  - name: Numpy_Lib
)");
  ASSERT_EQ(s.compute_capability.size(), 4u);
  EXPECT_EQ(s.compute_capability[0].kind, ArchRequirement::Kind::nvidia_min);
  EXPECT_EQ(s.compute_capability[0].major, 8);
  EXPECT_EQ(s.compute_capability[2].kind, ArchRequirement::Kind::gfx_family);
  EXPECT_EQ(s.compute_capability[3].name, "gfx90a");
  EXPECT_EQ(s.memory_bandwidth_gbps, 2000);
  EXPECT_EQ(s.driver_version_min, "535.54.03");
  EXPECT_EQ(s.vendors, (std::vector<std::string>{"nvidia", "amd"}));
  EXPECT_EQ(s.device_count_min, 2);
  EXPECT_DOUBLE_EQ(*s.memory_gb_min, 40.5);
  EXPECT_EQ(s.kernel_version_min, "5.15");
  ASSERT_EQ(s.dependencies.size(), 2u);
  EXPECT_EQ(s.dependencies[0].dist, "torch");
  EXPECT_TRUE(s.dependencies[0].vendor_agnostic_wheel);
  EXPECT_TRUE(s.dependencies[0].full_distribution);
  EXPECT_EQ(s.dependencies[0].version_range->str(), ">=2.1.0,<2.2.0");
  EXPECT_EQ(s.dependencies[1].dist, "numpy-lib");
  EXPECT_EQ(s.order.size(), 7u);
  EXPECT_EQ(s.order[0], "gpu_compute_capability");
}

TEST(ContractSpec, EmptyAndMinimal) {
  EXPECT_FALSE(parse_ok("").has_gpu_requirements());
  EXPECT_FALSE(parse_ok("# nothing\n").has_gpu_requirements());
  auto s = parse_ok("required_features:\n  - gpu_compute_capability: 8.0\n");
  ASSERT_EQ(s.compute_capability.size(), 1u);
  EXPECT_EQ(s.compute_capability[0].describe(), ">= sm_80");
  EXPECT_EQ(parse_ok("required_features:\n  - gpu_compute_capability: xe-hpc\n")
                .compute_capability[0]
                .kind,
            ArchRequirement::Kind::exact);
}

TEST(ArchRequirement, Accepts) {
  auto sm80 = *ArchRequirement::parse("sm_80");
  EXPECT_TRUE(sm80.accepts("sm_80"));
  EXPECT_TRUE(sm80.accepts("sm_90"));
  EXPECT_TRUE(sm80.accepts("sm_100"));
  EXPECT_TRUE(sm80.accepts("sm_86"));
  EXPECT_FALSE(sm80.accepts("sm_75"));
  EXPECT_FALSE(sm80.accepts("gfx942"));
  auto sm90a = *ArchRequirement::parse("sm_90a");
  EXPECT_TRUE(sm90a.accepts("sm_90"));
  EXPECT_FALSE(sm90a.accepts("sm_100"));
  auto fam = *ArchRequirement::parse("gfx94*");
  EXPECT_TRUE(fam.accepts("gfx942"));
  EXPECT_TRUE(fam.accepts("gfx940"));
  EXPECT_FALSE(fam.accepts("gfx90a"));
  EXPECT_FALSE(fam.accepts("gfx1100"));
  auto exact = *ArchRequirement::parse("gfx90a");
  EXPECT_TRUE(exact.accepts("gfx90a:sramecc+:xnack-"));
  EXPECT_FALSE(exact.accepts("gfx942"));
  for (const char* bad : {"sm_", "sm_8", "sm_8000", "gfx", "gfxzz", "gfx*", "9", "sm80:x"})
    EXPECT_FALSE(ArchRequirement::parse(bad)) << bad;
}

struct Bad {
  const char* name;
  std::string text;
  const char* location;  // "spec.yaml:L:C"
  const char* contains;
};

TEST(ContractSpec, MalformedIsLocated) {
  const Bad cases[] = {
      {"syntax", "required_features:\n  - vendor: [nvidia\n", "spec.yaml:3:1", ""},
      {"tab indent", "required_features:\n\t- vendor: nvidia\n", "spec.yaml:2:", ""},
      {"top unknown", "required_feature:\n  - vendor: nvidia\n", "spec.yaml:1:1",
       "did you mean 'required_features'"},
      {"feature unknown", "required_features:\n  - memory_bandwith_gbps: 10\n", "spec.yaml:2:5",
       "did you mean 'memory_bandwidth_gbps'"},
      {"dependency unknown", "dependencies:\n  - name: torch\n    version_rage: '>=2'\n",
       "spec.yaml:3:5", "did you mean 'version_range'"},
      {"features map", "required_features:\n  vendor: nvidia\n", "spec.yaml:2:3",
       "list of one-key items"},
      {"two keys", "required_features:\n  - vendor: nvidia\n    device_count_min: 2\n",
       "spec.yaml:2:5", "one 'key: value' pair"},
      {"bandwidth type", "required_features:\n  - memory_bandwidth_gbps: fast\n", "spec.yaml:2:28",
       "expected a non-negative number"},
      {"bandwidth list", "required_features:\n  - memory_bandwidth_gbps: [1, 2]\n",
       "spec.yaml:2:28", "expected a string"},
      {"count", "required_features:\n  - device_count_min: 1.5\n", "spec.yaml:2:23",
       "whole number"},
      {"count zero", "required_features:\n  - device_count_min: 0\n", "spec.yaml:2:23",
       "whole number"},
      {"driver", "required_features:\n  - driver_version_min: latest\n", "spec.yaml:2:25",
       "dotted version"},
      {"vendor", "required_features:\n  - vendor: nvida\n", "spec.yaml:2:13",
       "did you mean 'nvidia'"},
      {"arch", "required_features:\n  - gpu_compute_capability: sm80\n", "spec.yaml:2:29",
       "did you mean 'sm_80'"},
      {"arch name", "required_features:\n  - gpu_compute_capability: [sm_80, xe-hcp]\n",
       "spec.yaml:2:37", "unknown architecture"},
      {"twice", "required_features:\n  - vendor: amd\n  - vendor: nvidia\n", "spec.yaml:3:5",
       "given twice (first at spec.yaml:2:5)"},
      {"no name", "dependencies:\n  - version_range: '>=2'\n", "spec.yaml:2:5", "missing key 'name'"},
      {"range", "dependencies:\n  - name: torch\n    version_range: 2.1.0\n", "spec.yaml:3:20",
       "did you mean '==2.1.0'"},
      {"range local", "dependencies:\n  - name: torch\n    version_range: '>=2.1+cu121'\n",
       "spec.yaml:3:20", "local label"},
      {"bool", "dependencies:\n  - name: torch\n    full_distribution: yes please\n",
       "spec.yaml:3:24", "expected true or false"},
      {"wheel on numpy", "dependencies:\n  - name: numpy\n    vendor_agnostic_wheel: true\n",
       "spec.yaml:3:28", "pytorch (torch) only"},
      {"dependencies map", "dependencies:\n  name: torch\n", "spec.yaml:2:3", "list of packages"},
      {"root list", "- vendor: nvidia\n", "spec.yaml:1:1", "expected a mapping"},
      {"dup dep", "dependencies:\n  - name: torch\n  - name: PyTorch\n", "spec.yaml:3:11",
       "listed twice"},
  };
  for (const auto& c : cases) {
    auto s = parse_contract(c.text, "spec.yaml");
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_EQ(s.error().kind, ErrorKind::bad_input) << c.name;
    EXPECT_EQ(s.error().message.rfind(c.location, 0), 0u) << c.name << ": " << s.error().message;
    EXPECT_NE(s.error().message.find(c.contains), std::string::npos)
        << c.name << ": " << s.error().message;
  }
}

TEST(ContractSpec, HugeAndDeep) {
  // Over the size limit.
  std::string huge = "required_features:\n";
  while (huge.size() < (5u << 20)) huge += "  - vendor: nvidia\n";
  auto s = parse_contract(huge, "big.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind("big.yaml", 0), 0u);
  // Large but legal lists are fine… as long as the keys are not repeated.
  std::string many = "dependencies:\n";
  for (int i = 0; i < 5000; ++i) many += "  - name: pkg" + std::to_string(i) + "\n";
  EXPECT_TRUE(parse_contract(many, "many.yaml").ok());
  // Deep nesting: a located error, no crash.
  for (size_t depth : {100u, 5000u}) {
    std::string deep = "required_features:\n  - vendor: " + std::string(depth, '[') + "nvidia" +
                       std::string(depth, ']') + "\n";
    auto d = parse_contract(deep, "deep.yaml");
    ASSERT_FALSE(d.ok()) << depth;
    EXPECT_EQ(d.error().message.rfind("deep.yaml:", 0), 0u) << d.error().message;
  }
  std::string nul("required_features:\n\0", 21);
  EXPECT_FALSE(parse_contract(nul, "nul.yaml").ok());
}

TEST(ContractSpec, MissingFile) {
  test::TempDir dir;
  auto s = load_contract(dir / "runtime-spec.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::bad_input);
  EXPECT_NE(s.error().message.find("no such file"), std::string::npos);
  auto d = load_contract(dir.path());
  ASSERT_FALSE(d.ok());
  test::write_file(dir / "ok.yaml", "required_features:\n  - vendor: nvidia\n");
  EXPECT_TRUE(load_contract(dir / "ok.yaml").ok());
}

TEST(ContractSpec, NormalizeDistName) {
  EXPECT_EQ(normalize_dist_name("PyTorch"), "torch");
  EXPECT_EQ(normalize_dist_name("torch"), "torch");
  EXPECT_EQ(normalize_dist_name("Foo__Bar.baz"), "foo-bar-baz");
  EXPECT_EQ(normalize_dist_name("nvidia_nccl_cu12"), "nvidia-nccl-cu12");
}

}  // namespace
}  // namespace anygpu
