// accelerator-config.yaml parsing: every key, and a malformed corpus that must end as bad_input
// with FILE:LINE:COLUMN.
#include <gtest/gtest.h>

#include <regex>

#include "select/accelerator_config.h"
#include "test_support.h"

namespace anygpu {

namespace {
Result<AcceleratorConfig> parse(const std::string& text) {
  return parse_accelerator_config(text, "/cfg/accelerator-config.yaml");
}

// bad_input whose message starts "FILE:LINE:COLUMN: " and contains `needle`.
void expect_located(const std::string& text, int line, int column, const std::string& needle) {
  auto r = parse(text);
  ASSERT_FALSE(r.ok()) << text;
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  auto prefix =
      "/cfg/accelerator-config.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  EXPECT_EQ(r.error().message.rfind(prefix, 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}
}  // namespace

TEST(SelectConfig, EmptyAndAbsentAreBackendAuto) {
  for (const char* text : {"", "# only a comment\n", "---\n"}) {
    auto c = parse(text);
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->backend, "auto");
    EXPECT_TRUE(c->policy.empty());
    EXPECT_FALSE(c->count);
    EXPECT_TRUE(c->list.empty());
  }
  auto missing = load_accelerator_config("/nonexistent/accelerator-config.yaml", false);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->backend, "auto");
  auto required = load_accelerator_config("/nonexistent/accelerator-config.yaml", true);
  ASSERT_FALSE(required.ok());
  EXPECT_EQ(required.error().kind, ErrorKind::bad_input);
}

TEST(SelectConfig, TheSpecExampleParses) {
  auto c = parse(R"(backend: auto
device_selection_policy:
  - priority: 2
    criteria:
      - {type: gpu_vendor, equals: amd}
  - priority: 1
    criteria:
      - {type: gpu_compute_capability, min: sm_80}
      - {type: driver_version, min: 535.54.03}
      - {type: memory_gb, min: 40}
      - {type: device_count, min: 2}
devices: all
runtime_contract: ./runtime-spec.yaml
)");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->policy.size(), 2u);
  EXPECT_EQ(c->policy[0].priority, 1);  // sorted by priority
  ASSERT_EQ(c->policy[0].criteria.size(), 4u);
  EXPECT_EQ(c->policy[0].criteria[0].min, "sm_80");
  EXPECT_EQ(c->policy[0].criteria[1].min, "535.54.03");
  EXPECT_EQ(c->policy[0].criteria[2].min_number, 40.0);
  EXPECT_EQ(c->policy[0].criteria[3].min_number, 2.0);
  EXPECT_EQ(c->policy[1].criteria[0].equals, std::vector<std::string>{"amd"});
  EXPECT_EQ(c->runtime_contract, "/cfg/runtime-spec.yaml");  // relative to the config's dir
}

TEST(SelectConfig, BackendNamesAndVendorIds) {
  const std::pair<const char*, const char*> cases[] = {
      {"cuda", "nvidia"}, {"rocm", "amd"},    {"hip", "amd"},       {"oneapi", "intel"},
      {"xpu", "intel"},   {"cann", "ascend"}, {"musa", "mthreads"}, {"mlu", "cambricon"},
      {"hpu", "gaudi"},   {"cpu", "cpu"},     {"auto", "auto"},     {"nvidia", "nvidia"},
      {"AMD", "amd"},     {"dtk", "hygon"},   {"ascend", "ascend"}};
  for (auto [written, vendor] : cases) {
    auto c = parse(std::string("backend: ") + written + "\n");
    ASSERT_TRUE(c.ok()) << written << ": " << c.error().message;
    EXPECT_EQ(c->backend, vendor) << written;
    EXPECT_EQ(c->backend_written, written);
  }
}

TEST(SelectConfig, DevicesForms) {
  auto all = parse("devices: all\n");
  ASSERT_TRUE(all.ok());
  EXPECT_FALSE(all->count);
  auto n = parse("devices: 2\n");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->count, 2);
  auto list = parse("devices: [0000:18:00.0, 3, 2a:00.0]\n");
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->list.size(), 3u);
  EXPECT_EQ(list->list[0].bus_id, "0000:18:00.0");
  EXPECT_EQ(list->list[1].index, 3);
  EXPECT_EQ(list->list[2].bus_id, "0000:2a:00.0");
  auto block = parse("devices:\n  - \"0000:DB:00.0\"\n");
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->list[0].bus_id, "0000:db:00.0");
}

TEST(SelectConfig, ComputeCapabilityForms) {
  auto c = parse(R"(device_selection_policy:
  - priority: 1
    criteria:
      - {type: gpu_compute_capability, min: "8.6"}
      - {type: gpu_compute_capability, equals: [gfx942, "gfx94*", SM_90, xe-hpc]}
)");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->policy[0].criteria[0].min, "sm_86");
  EXPECT_EQ(c->policy[0].criteria[1].equals,
            (std::vector<std::string>{"gfx942", "gfx94*", "sm_90", "xe-hpc"}));
}

TEST(SelectConfig, UnknownKeysSuggest) {
  expect_located("backend: auto\ndevice_selction_policy: []\n", 2, 1,
                 "unknown key 'device_selction_policy' (did you mean 'device_selection_policy'?)");
  expect_located("runtime_contrat: x.yaml\n", 1, 1, "did you mean 'runtime_contract'?");
  expect_located("device_selection_policy:\n  - priorty: 1\n", 2, 5, "did you mean 'priority'?");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: gpu_vendor, equal: amd}\n",
      4, 28, "did you mean 'equals'?");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: gpu_vendr, equals: amd}\n",
      4, 16, "did you mean 'gpu_vendor'?");
  expect_located("backend: cdua\n", 1, 10, "did you mean 'cuda'?");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: gpu_vendor, equals: nvidai}\n",
      4, 36, "did you mean 'nvidia'?");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: memory_gb, max: 3}\n",
      4, 27, "unknown key 'max'");
}

TEST(SelectConfig, WrongTypesAndValues) {
  expect_located("- backend: auto\n", 1, 1, "expected a mapping");
  expect_located("backend: [cuda]\n", 1, 10, "backend: expected a string");
  expect_located("device_selection_policy: {priority: 1}\n", 1, 26, "expected a list");
  expect_located("device_selection_policy:\n  - priority: first\n", 2, 15, "whole number");
  expect_located("device_selection_policy:\n  - criteria: []\n", 2, 5, "missing key 'priority'");
  expect_located("device_selection_policy:\n  - priority: 1\n    criteria: {type: gpu_vendor}\n", 3,
                 15, "expected a list");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: gpu_compute_capability, min: gfx942}\n",
      4, 45, "use equals");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: gpu_compute_capability, min: sm_80, equals: sm_90}\n",
      4, 9, "exactly one of");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: driver_version, min: latest}\n",
      4, 37, "dotted version");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: memory_gb, min: lots}\n",
      4, 32, "non-negative number");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {type: device_count, min: 0}\n",
      4, 35, "whole number");
  expect_located(
      "device_selection_policy:\n  - priority: 1\n    criteria:\n"
      "      - {min: 2}\n",
      4, 9, "missing key 'type'");
  expect_located("devices: some\n", 1, 10, "expected 'all', a count");
  expect_located("devices: 0\n", 1, 10, "expected 'all', a count");
  expect_located("devices: []\n", 1, 10, "empty list");
  expect_located("devices: [0, 0]\n", 1, 14, "listed twice");
  expect_located("devices: [0000:zz:00.0]\n", 1, 11, "neither a device index");
  expect_located("devices: [{bus: 1}]\n", 1, 11, "expected a string");
  expect_located("runtime_contract: \"\"\n", 1, 19, "must not be empty");
}

TEST(SelectConfig, SyntaxErrorsAreLocated) {
  auto r = parse("backend: auto\ndevices: [0, 1\n");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(std::regex_search(r.error().message,
                                std::regex("^/cfg/accelerator-config.yaml:[0-9]+:[0-9]+: ")))
      << r.error().message;
  expect_located("backend: auto\n  devices: all\n", 2, 10, "");
  expect_located("backend: a: b\n", 1, 11, "");
  expect_located("devices: [0, 1]\n\tbackend: auto\n", 2, 2, "");
}

TEST(SelectConfig, DeepNestingIsLocated) {
  std::string deep = "devices: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  auto r = parse(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_TRUE(std::regex_search(r.error().message,
                                std::regex("^/cfg/accelerator-config.yaml:[0-9]+:[0-9]+: ")))
      << r.error().message.substr(0, 200);
  // Nesting below the parser's guard is still refused by the schema, with a location.
  expect_located("devices: [[[[1]]]]\n", 1, 11, "expected a string");
}

TEST(SelectConfig, HugeFilesAreRefusedWithALocation) {
  // Over the limit: refused where the limit is crossed.
  std::string huge;
  while (huge.size() <= kMaxConfigBytes) huge += "# padding padding padding padding padding\n";
  auto r = parse(huge);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_TRUE(std::regex_search(r.error().message,
                                std::regex("^/cfg/accelerator-config.yaml:[0-9]{5}:[0-9]+: file "
                                           "exceeds 1 MiB")))
      << r.error().message;
  // Under the limit but long: the mistake at the end is found and located.
  std::string big = "device_selection_policy:\n";
  for (int i = 0; i < 5000; ++i)
    big += "  - priority: " + std::to_string(i) +
           "\n    criteria: [{type: gpu_vendor, equals: amd}]\n";
  big += "  - priority: 9\n    criteria: [{type: memory_gb, min: -1}]\n";
  expect_located(big, 10003, 39, "non-negative number");
  // Through the file loader, too.
  test::TempDir dir;
  test::write_file(dir / "huge.yaml", huge + huge);
  auto loaded = load_accelerator_config(dir / "huge.yaml", true);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find(dir / "huge.yaml:"), std::string::npos);
}

TEST(SelectConfig, BinaryAndDirectoriesAreBadInput) {
  auto r = parse(std::string("backend: auto\n\0\n", 16));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  test::TempDir dir;
  auto d = load_accelerator_config(dir.path(), true);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::bad_input);
}

TEST(SelectConfig, TheExampleFileParses) {
  auto c = load_accelerator_config(test::source_dir() + "/examples/accelerator-config.yaml", true);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->policy.empty());
}

}  // namespace anygpu
