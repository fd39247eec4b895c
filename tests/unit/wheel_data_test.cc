// data/wheels.yaml: the shipped table is valid and complete, and broken tables are clear
// errors with FILE:LINE:COLUMN, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "registry/wheel_data.h"
#include "test_support.h"

namespace anygpu {
namespace {

std::string shipped_text() {
  std::ifstream in(test::source_dir() + "/data/wheels.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(const std::string& text) {
  auto r = parse_wheel_data(text, "w.yaml");
  EXPECT_FALSE(r.ok()) << "accepted:\n" << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  return r.error().message;
}

constexpr const char* kMinimal = R"(schema: anygpu.wheels/v1
index_url: https://download.pytorch.org/whl/{variant}
cuda_families:
  - {cuda: "12", driver_min: "525.60.13"}
packages:
  - name: torch
    releases:
      - version: "2.5"
        latest: "2.5.1"
        variants:
          - {name: cu124, cuda: "12.4", arches: [sm_80, sm_90]}
          - {name: cpu}
)";

TEST(WheelData, BuiltInCopyIsTheShippedFile) {
  EXPECT_EQ(builtin_wheel_data_text(), shipped_text());
  auto d = parse_wheel_data(shipped_text(), "data/wheels.yaml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(builtin_wheel_data().packages.empty());
}

TEST(WheelData, ShippedTableMatchesTheDocumentedFacts) {
  const auto& d = builtin_wheel_data();
  EXPECT_EQ(d.family_driver_min("13.0").value_or(""), "580");
  EXPECT_EQ(d.family_driver_min("12.8").value_or(""), "525.60.13");
  EXPECT_EQ(d.family_driver_min("11.8").value_or(""), "450.80.02");
  EXPECT_EQ(d.toolkit_driver_min("12.4").value_or(""), "550.54.14");
  EXPECT_EQ(d.toolkit_driver_min("13.0").value_or(""), "580.65.06");
  const auto* torch = d.package("torch");
  ASSERT_NE(torch, nullptr);
  auto names = [&](const char* v) {
    std::vector<std::string> out;
    for (const auto& x : torch->release(v)->variants) out.push_back(x.name);
    return out;
  };
  EXPECT_EQ(names("2.6"), (std::vector<std::string>{"cu118", "cu124", "cu126", "rocm6.1",
                                                    "rocm6.2.4", "xpu", "cpu"}));
  EXPECT_EQ(names("2.9"), (std::vector<std::string>{"cu126", "cu128", "cu130", "rocm6.3", "rocm6.4",
                                                    "xpu", "cpu"}));
  EXPECT_EQ(torch->release("2.4")->variant("xpu"), nullptr);  // xpu builds start at 2.5
  // Blackwell needs cu128+; cu126 has none; cu130 drops Volta.
  auto has = [](const WheelVariant* v, const char* a) {
    return std::find(v->arches.begin(), v->arches.end(), a) != v->arches.end();
  };
  EXPECT_FALSE(has(torch->release("2.9")->variant("cu126"), "sm_120"));
  EXPECT_TRUE(has(torch->release("2.9")->variant("cu128"), "sm_120"));
  EXPECT_FALSE(has(torch->release("2.9")->variant("cu130"), "sm_70"));
  EXPECT_EQ(d.index_for("cu128"), "https://download.pytorch.org/whl/cu128");
  ASSERT_NE(d.plugin("ascend"), nullptr);
  EXPECT_EQ(d.plugin("ascend")->package, "torch-npu");
  // CANN 8.5.0's release notes: Ascend HDK 25.5.X / 25.3.X / 25.2.X / 25.0.X.
  ASSERT_NE(d.plugin("ascend")->drivers_for_cann("8.5.0"), nullptr);
  EXPECT_EQ(d.plugin("ascend")->drivers_for_cann("8.5.0")->drivers,
            (std::vector<std::string>{"25.5", "25.3", "25.2", "25.0"}));
  EXPECT_EQ(d.plugin("ascend")->drivers_for_cann("8.0.RC3"), nullptr);  // notes not read
}

// A plugin's CANN -> HDK rows: every field required, drivers as major.minor.
TEST(WheelData, CannDriverRowsAreChecked) {
  std::string t = std::string(kMinimal) +
                  "plugins:\n  - vendor: ascend\n    package: torch-npu\n"
                  "    pairs: [{torch: \"2.5.1\", plugin: \"2.5.1\", cann: \"8.1.RC1\"}]\n"
                  "    cann_drivers:\n";
  auto ok =
      parse_wheel_data(t + "      - {cann: \"8.5.0\", drivers: [\"25.5\"], source: x}\n", "w.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->plugin("ascend")->cann_drivers.size(), 1u);
  EXPECT_NE(error_of(t + "      - {cann: \"8.5.0\", drivers: [\"25.5.X\"], source: x}\n")
                .find("drivers: expected an HDK major.minor"),
            std::string::npos);
  EXPECT_NE(error_of(t + "      - {cann: \"8.5.0\", drivers: [\"25.5\"]}\n").find("source"),
            std::string::npos);
  EXPECT_NE(error_of(t + "      - {cann: \"8.5.0\", drivers: [\"25.5\"], source: x, hdk: 1}\n")
                .find("hdk"),
            std::string::npos);
  EXPECT_FALSE(parse_wheel_data(t + "      cann: 8.5.0\n", "w.yaml").ok());
}

// torch-npu 2.14.0 is paired with the CANN its package metadata names; 2.13.0, whose sources
// name none, is not paired at all (a pair without its CANN would be offered on every CANN).
TEST(WheelData, AscendPluginPairsFollowTheirSources) {
  const auto* npu = builtin_wheel_data().plugin("ascend");
  ASSERT_NE(npu, nullptr);
  auto find = [&](const std::string& plugin) -> const PluginPair* {
    for (const auto& p : npu->pairs)
      if (p.plugin == plugin) return &p;
    return nullptr;
  };
  ASSERT_NE(find("2.14.0"), nullptr);
  EXPECT_EQ(find("2.14.0")->torch, "2.14.0");
  EXPECT_EQ(find("2.14.0")->cann, "9.1.0");
  EXPECT_EQ(find("2.13.0"), nullptr);
  for (const auto& p : npu->pairs) EXPECT_FALSE(p.cann.empty()) << p.plugin;
}

TEST(WheelData, MinimalTableParses) {
  auto d = parse_wheel_data(kMinimal, "w.yaml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->package("torch")->release("2.5.1")->latest, "2.5.1");
}

// AMD's kernel-driver / user-space matrix: a module version finds its row by its own number
// (amdgpu-dkms 6.3.6 is ROCm 6.0's driver, not the "6.3" row).
TEST(WheelData, AmdgpuModuleFindsItsMatrixRow) {
  const auto& d = builtin_wheel_data();
  ASSERT_NE(d.amdgpu_driver("6.8.5"), nullptr);
  EXPECT_EQ(d.amdgpu_driver("6.8.5")->kmd, "6.2");
  EXPECT_EQ(d.amdgpu_driver("6.8.5")->rocm,
            (std::vector<std::string>{"6.0", "6.1", "6.2", "6.3", "6.4", "7.0"}));
  ASSERT_NE(d.amdgpu_driver("6.3.6"), nullptr);
  EXPECT_EQ(d.amdgpu_driver("6.3.6")->kmd, "6.0");
  EXPECT_EQ(d.amdgpu_driver("6.12.12")->kmd, "6.4");
  EXPECT_EQ(d.amdgpu_driver("6.10.5")->kmd, "6.3");
  EXPECT_EQ(d.amdgpu_driver("6.7.0")->kmd, "6.1");
  for (const char* unknown : {"30.10.1", "6.16.6", "", "6", "x.y.z", "6.8x.5", ".8.5"})
    EXPECT_EQ(d.amdgpu_driver(unknown), nullptr) << unknown;
}

TEST(WheelData, AmdgpuDriverRowsAreChecked) {
  std::string t = kMinimal;
  auto with_rows = [&](const std::string& rows) { return t + "amdgpu_drivers:\n" + rows; };
  auto ok = parse_wheel_data(with_rows("  - {kmd: \"6.2\", module: \"6.8\", rocm: [\"6.0\"]}\n"),
                             "w.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->amdgpu_drivers.size(), 1u);
  EXPECT_EQ(ok->amdgpu_drivers[0].module, "6.8");
  EXPECT_NE(error_of(with_rows("  - {kmd: \"6.2.1\", rocm: [\"6.0\"]}\n")).find("kmd:"),
            std::string::npos);
  EXPECT_NE(error_of(with_rows("  - {kmd: \"6.2\", rocm: []}\n")).find("must not be empty"),
            std::string::npos);
  EXPECT_NE(error_of(with_rows("  - {kmd: \"6.2\", rocm: [\"6.x\"]}\n")).find("rocm:"),
            std::string::npos);
  EXPECT_NE(
      error_of(with_rows("  - {kmd: \"6.2\", module: \"6\", rocm: [\"6.0\"]}\n")).find("module:"),
      std::string::npos);
  EXPECT_NE(error_of(with_rows("  - {kmd: \"6.2\", rocm: [\"6.0\"]}\n"
                               "  - {kmd: \"6.2\", rocm: [\"6.1\"]}\n"))
                .find("kmd:"),
            std::string::npos);
  EXPECT_NE(error_of(with_rows("  - {kmd: \"6.2\", module: \"6.8\", rocm: [\"6.0\"]}\n"
                               "  - {kmd: \"6.1\", module: \"6.8\", rocm: [\"6.1\"]}\n"))
                .find("module:"),
            std::string::npos);
  EXPECT_NE(error_of(with_rows("  - {kmd: \"6.2\", rocm: [\"6.0\"], kfd: x}\n")).find("kfd"),
            std::string::npos);
  EXPECT_NE(error_of(with_rows("  - {rocm: [\"6.0\"]}\n")).find("kmd"), std::string::npos);
  EXPECT_FALSE(parse_wheel_data(t + "amdgpu_drivers: {kmd: 6.2}\n", "w.yaml").ok());
}

TEST(WheelData, ErrorsNameFileLineColumn) {
  std::string t = kMinimal;
  auto with = [&](const std::string& from, const std::string& to) {
    auto s = t;
    auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_EQ(
      error_of(with("cuda: \"12.4\", arches", "cuda: \"12.6\", arches")).rfind("w.yaml:11:", 0),
      0u);
  EXPECT_NE(error_of(with("sm_80", "sm80")).find("w.yaml:11:"), std::string::npos);
  EXPECT_NE(error_of(with("sm_80", "sm80")).find("expected sm_XY"), std::string::npos);
  EXPECT_NE(error_of(with("name: cpu", "name: cpux")).find("expected cuNNN, rocmX.Y, xpu or cpu"),
            std::string::npos);
  EXPECT_NE(error_of(with("latest: \"2.5.1\"", "latest: \"2.6.0\"")).find("w.yaml:9:17"),
            std::string::npos);
  EXPECT_NE(error_of(with("schema: anygpu.wheels/v1", "schema: anygpu.wheels/v9"))
                .find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(error_of(with("index_url: https://download.pytorch.org/whl/{variant}",
                          "index_url: https://example.org/whl"))
                .find("{variant}"),
            std::string::npos);
  EXPECT_NE(error_of(with("driver_min: \"525.60.13\"", "driver_min: \"new\"")).find("w.yaml:4:"),
            std::string::npos);
  EXPECT_NE(error_of(with("  - name: torch", "  - nam: torch")).find("did you mean"),
            std::string::npos);
  EXPECT_NE(error_of(with("{name: cpu}", "{name: cpu, arches: [sm_80]}")).find("not a property"),
            std::string::npos);
  EXPECT_NE(
      error_of(with("{name: cpu}", "{name: cu124, cuda: \"12.4\", arches: [sm_80]}")).find("twice"),
      std::string::npos);
  EXPECT_NE(error_of(with("cuda: \"12\"", "cuda: \"11\"")).find("no cuda_families entry"),
            std::string::npos);
  EXPECT_NE(error_of(with("{name: cpu}", "{name: rocm6.1, rocm: \"6.2\", gfx: [gfx942]}"))
                .find("must state its ROCm version"),
            std::string::npos);
}

TEST(WheelData, MalformedInputIsAnErrorNotACrash) {
  std::string t = kMinimal;
  for (size_t cut : {size_t{0}, size_t{10}, t.size() / 3, t.size() / 2, t.size() - 5})
    EXPECT_FALSE(parse_wheel_data(t.substr(0, cut), "w.yaml").ok()) << cut;
  EXPECT_NE(error_of("schema: [unclosed").find("w.yaml:"), std::string::npos);
  EXPECT_NE(error_of(std::string("a\0b", 3)).find("NUL"), std::string::npos);
  EXPECT_NE(error_of("- just\n- a list\n").find("w.yaml:1:1"), std::string::npos);
  EXPECT_NE(error_of(std::string(5 << 20, '#')).find("4 MiB"), std::string::npos);
  std::string deep = "packages: " + std::string(5000, '[') + std::string(5000, ']');
  EXPECT_FALSE(parse_wheel_data(deep, "w.yaml").ok());
  // Huge numbers are not versions.
  std::string huge = t;
  huge.replace(huge.find("525.60.13"), 9, "99999999999999999999.1");
  EXPECT_FALSE(parse_wheel_data(huge, "w.yaml").ok());
  // Anchors and aliases are fine; an alias to nothing is a located error.
  EXPECT_NE(error_of("arches: *nowhere\n").find("w.yaml:"), std::string::npos);
}

TEST(WheelData, LoadFromFile) {
  test::TempDir tmp;
  test::write_file(tmp / "w.yaml", kMinimal);
  auto d = load_wheel_data(tmp / "w.yaml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->file, tmp / "w.yaml");
  auto missing = load_wheel_data(tmp / "nope.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.yaml: no such file"), std::string::npos);
  EXPECT_FALSE(load_wheel_data(tmp.path()).ok());  // a directory
}

}  // namespace
}  // namespace anygpu
