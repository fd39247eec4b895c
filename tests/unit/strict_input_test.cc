// No silent fallbacks: every input anygpu is given is either used as written or refused with a
// message naming where — duplicate YAML keys, extra documents, special files, bad host options,
// device lists and visible-devices variables naming absent devices, foreign drivers, corrupt
// sizes, and a --python that never answers.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "anygpu.h"
#include "cdi/cdi.h"
#include "contract/spec.h"
#include "host/host_options.h"
#include "pyenv/python_env.h"
#include "registry/registry_yaml.h"
#include "registry/wheel_data.h"
#include "select/accelerator_config.h"
#include "select/render.h"
#include "select/select.h"
#include "test_support.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every YAML reader anygpu has, as "parse this text as that file".
struct Reader {
  const char* name;
  std::function<Result<bool>(const std::string& text)> parse;
  std::string valid;  // a document the reader accepts
};

template <class T>
Result<bool> ok_or(const Result<T>& r) {
  if (!r) return r.error();
  return true;
}

std::vector<Reader> readers() {
  static const std::string vendors = slurp(test::source_dir() + "/data/vendors.yaml");
  static const std::string devices = slurp(test::source_dir() + "/data/devices.yaml");
  static const std::string wheels = slurp(test::source_dir() + "/data/wheels.yaml");
  return {
      {"runtime-spec", [](const std::string& t) { return ok_or(parse_contract(t, "F")); },
       "required_features:\n  - vendor: nvidia\n"},
      {"accelerator-config",
       [](const std::string& t) { return ok_or(parse_accelerator_config(t, "F")); },
       "backend: cuda\n"},
      {"wheels", [](const std::string& t) { return ok_or(parse_wheel_data(t, "F")); }, wheels},
      {"vendors registry",
       [](const std::string& t) { return ok_or(load_registry(t, "F", devices, "D")); }, vendors},
      {"devices registry",
       [](const std::string& t) { return ok_or(load_registry(vendors, "V", t, "F")); }, devices},
      {"CDI spec", [](const std::string& t) { return ok_or(parse_cdi_spec(t, "F")); },
       "cdiVersion: 0.5.0\nkind: vendor.com/gpu\ndevices:\n  - name: '0'\n    containerEdits:\n"
       "      deviceNodes: [{path: /dev/x0}]\n"},
  };
}

size_t lines_of(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The first top-level key of a document ("schema" in "schema: x\n…").
std::string first_key(const std::string& text) {
  for (auto line : split_lines(text)) {
    if (line.empty() || line[0] == '#' || line[0] == ' ' || line.starts_with("---")) continue;
    return std::string(line.substr(0, line.find(':')));
  }
  return {};
}

}  // namespace

TEST(StrictYaml, EveryReaderAcceptsItsValidDocument) {
  for (const auto& r : readers()) {
    auto ok = r.parse(r.valid);
    EXPECT_TRUE(ok.ok()) << r.name << ": " << (ok ? "" : ok.error().message);
  }
}

TEST(StrictYaml, EveryReaderRefusesADuplicateTopLevelKeyWithItsLocation) {
  for (const auto& r : readers()) {
    auto key = first_key(r.valid);
    ASSERT_FALSE(key.empty()) << r.name;
    // The same key again at the end: yaml-cpp alone would keep the first copy silently.
    auto text = r.valid + key + ": again\n";
    auto res = r.parse(text);
    ASSERT_FALSE(res.ok()) << r.name;
    EXPECT_EQ(res.error().kind, ErrorKind::bad_input);
    auto where = cat({"F:", std::to_string(lines_of(r.valid) + 1), ":1: duplicate key '", key});
    EXPECT_EQ(res.error().message.rfind(where, 0), 0u) << r.name << ": " << res.error().message;
  }
}

TEST(StrictYaml, EveryReaderRefusesASecondDocument) {
  for (const auto& r : readers()) {
    auto res = r.parse(r.valid + "---\n" + r.valid);
    ASSERT_FALSE(res.ok()) << r.name;
    EXPECT_NE(res.error().message.find("a second YAML document"), std::string::npos)
        << r.name << ": " << res.error().message;
    // Located at the '---' that opens the second document.
    EXPECT_EQ(res.error().message.rfind("F:" + std::to_string(lines_of(r.valid) + 1) + ":", 0), 0u)
        << r.name << ": " << res.error().message;
  }
}

TEST(StrictYaml, NestedAndFlowDuplicatesAreFound) {
  // The observed cases: the second copy used to be ignored (first wins).
  auto spec = parse_contract("required_features: []\nrequired_features: [vendor: amd]\n", "s.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message.rfind("s.yaml:2:1: duplicate key 'required_features'", 0), 0u);
  auto cfg = parse_accelerator_config("backend: cpu\nbackend: cuda\n", "c.yaml");
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message.rfind("c.yaml:2:1: duplicate key 'backend'", 0), 0u);
  auto nested = parse_accelerator_config(
      "device_selection_policy:\n  - priority: 1\n    criteria: []\n    priority: 2\n", "c.yaml");
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.error().message.rfind("c.yaml:4:5: duplicate key 'priority'", 0), 0u)
      << nested.error().message;
  auto flow = parse_accelerator_config(
      "device_selection_policy:\n  - priority: 1\n    criteria: [{type: gpu_vendor, type: x}]\n",
      "c.yaml");
  ASSERT_FALSE(flow.ok());
  EXPECT_NE(flow.error().message.find("duplicate key 'type'"), std::string::npos);
  // Equal keys in different maps are not duplicates; a lone '---' opens the one document.
  EXPECT_TRUE(
      parse_accelerator_config("---\ndevice_selection_policy:\n  - priority: 1\n    criteria: []\n"
                               "  - priority: 2\n    criteria: []\n",
                               "c.yaml")
          .ok());
}

TEST(StrictFiles, SpecialFilesAreRefusedWithoutBlocking) {
  test::TempDir dir;
  auto fifo = dir / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  auto cfg = load_accelerator_config(fifo, true);
  auto spec = load_contract(fifo);
  auto wheels = load_wheel_data(fifo);
  auto dir_cfg = load_accelerator_config(dir.path(), false);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  for (const auto* r : {&cfg.error(), &spec.error(), &wheels.error()}) {
    EXPECT_EQ(r->kind, ErrorKind::bad_input);
    EXPECT_NE(r->message.find(fifo + ": is a FIFO, not a regular file"), std::string::npos)
        << r->message;
  }
  ASSERT_FALSE(dir_cfg.ok());  // a directory is not "absent": it is refused even when optional
  EXPECT_NE(dir_cfg.error().message.find("is a directory"), std::string::npos);
  auto null_dev = read_regular_file("/dev/null", 16, "test input");
  ASSERT_FALSE(null_dev.ok());
  EXPECT_NE(null_dev.error().message.find("character device"), std::string::npos);
}

TEST(StrictHostOptions, CliAndCAbiRefuseTheSameValues) {
  test::TempDir dir;
  test::write_file(dir / "file", "x");
  struct Case {
    std::optional<std::string> root;
    std::optional<long long> timeout;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {std::string(), std::nullopt, "empty path"},
      {dir / "missing", std::nullopt, "not a directory (No such file or directory)"},
      {dir / "file", std::nullopt, "not a directory"},
      {std::nullopt, 0, "expected milliseconds 1..600000"},
      {std::nullopt, 600001, "expected milliseconds 1..600000"},
      {std::nullopt, -5, "expected milliseconds 1..600000"},
  };
  for (const auto& c : cases) {
    HostOptionRequest cli;
    cli.root = c.root;
    cli.lib_timeout_ms = c.timeout;
    auto r = resolve_host_options(cli);
    ASSERT_FALSE(r.ok()) << c.needle;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_NE(r.error().message.find(c.needle), std::string::npos) << r.error().message;

    nlohmann::json opts = nlohmann::json::object();
    if (c.root) opts["root"] = *c.root;
    if (c.timeout) opts["lib_timeout_ms"] = *c.timeout;
    for (auto* fn : {&anygpu_detect_json, &anygpu_select_json}) {
      char* doc = fn(opts.dump().c_str());
      auto j = nlohmann::json::parse(doc);
      anygpu_free(doc);
      EXPECT_EQ(j["schema"], "anygpu.error/v1") << opts.dump();
      EXPECT_EQ(j["exit_code"], 2) << opts.dump();
      EXPECT_NE(j["error"].get<std::string>().find(c.needle), std::string::npos) << j.dump();
    }
  }
  // The environment is read by the same code for both.
  for (const char* bad : {"maybe", "2", "on"}) {
    ::setenv("ANYGPU_NO_LIBS", bad, 1);
    EXPECT_FALSE(resolve_host_options({}).ok()) << bad;
    char* doc = anygpu_detect_json(nullptr);
    auto j = nlohmann::json::parse(doc);
    anygpu_free(doc);
    EXPECT_EQ(j["exit_code"], 2) << bad;
  }
  ::setenv("ANYGPU_NO_LIBS", "yes", 1);
  ::setenv("ANYGPU_ROOT", (dir / "missing").c_str(), 1);
  auto env_root = resolve_host_options({});
  ::unsetenv("ANYGPU_ROOT");
  ::unsetenv("ANYGPU_NO_LIBS");
  ASSERT_FALSE(env_root.ok());
  EXPECT_NE(env_root.error().message.find("ANYGPU_ROOT"), std::string::npos);
  HostOptionRequest fine;
  fine.root = test::fixture_host("h100-8x");
  fine.lib_timeout_ms = 600000;
  EXPECT_TRUE(resolve_host_options(fine).ok());
}

TEST(StrictNumbers, NanAndInfinityAreNotNumbers) {
  for (const char* s : {"nan", "NaN", "inf", "-inf", "infinity", "1e999"})
    EXPECT_FALSE(parse_double(s)) << s;
  EXPECT_TRUE(parse_double("0.5"));
  auto spec = parse_contract("required_features:\n  - memory_gb_min: .nan\n", "s.yaml");
  EXPECT_FALSE(spec.ok());
}

namespace {
AcceleratorConfig config(const std::string& text) {
  auto c = parse_accelerator_config(text, "/cfg/a.yaml");
  EXPECT_TRUE(c.ok()) << (c ? "" : c.error().message);
  return c ? *c : AcceleratorConfig{};
}
std::map<std::string, std::string> env_of(const Selection& s) {
  return {s.env.begin(), s.env.end()};
}
}  // namespace

TEST(StrictSelection, ADeviceListNamingAbsentDevicesIsExit3) {
  const auto& h100 = test::fixture_inventory("h100-8x");
  for (const char* text : {"devices: [99]\n", "devices: [0, 99]\n", "devices: [0000:01:00.0]\n",
                           "backend: rocm\ndevices: [0]\n"}) {
    auto s = select_devices(h100, config(text), {});
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.error().kind, ErrorKind::host) << text;
    EXPECT_NE(s.error().message.find(": devices: no "), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().message.rfind("/cfg/a.yaml:", 0), 0u) << s.error().message;
  }
  auto s = select_devices(h100, config("devices: [0, 99]\n"), {});
  EXPECT_NE(s.error().message.find("no device 99 on this host"), std::string::npos)
      << s.error().message;
  // Listed devices that exist but fail every policy rule: exit 3, not the CPU.
  auto policy = select_devices(
      h100,
      config("devices: [1]\ndevice_selection_policy:\n  - priority: 1\n    criteria: [{type: "
             "memory_gb, min: 4000}]\n"),
      {});
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().kind, ErrorKind::host);
}

TEST(StrictSelection, CallerVisibleDevicesRestrictOutsideAnAllocation) {
  const auto& h100 = test::fixture_inventory("h100-8x");
  SelectInputs in;
  in.caller_env = {{"CUDA_VISIBLE_DEVICES", "3"}};
  auto s = select_devices(h100, config("backend: auto\n"), in);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->devices.size(), 1u);
  EXPECT_EQ(s->devices[0].index, 3);
  EXPECT_EQ(env_of(*s)["CUDA_VISIBLE_DEVICES"], "3");
  // UUID prefixes, as CUDA reads them.
  in.caller_env = {{"CUDA_VISIBLE_DEVICES", "GPU-c1c08ae2,5"}};
  auto u = select_devices(h100, config("devices: all\n"), in);
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(env_of(*u)["CUDA_VISIBLE_DEVICES"], "1,5");
  // An entry naming no device is exit 3 naming it.
  in.caller_env = {{"CUDA_VISIBLE_DEVICES", "3,42"}};
  auto bad = select_devices(h100, config("devices: all\n"), in);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::host);
  EXPECT_NE(bad.error().message.find("CUDA_VISIBLE_DEVICES=3,42"), std::string::npos);
  // A listed device the caller hid is not used.
  in.caller_env = {{"CUDA_VISIBLE_DEVICES", "3"}};
  EXPECT_FALSE(select_devices(h100, config("devices: [2]\n"), in).ok());
  // Level Zero's "device.sub-device" form keeps the device.
  SelectInputs ze;
  ze.caller_env = {{"ZE_AFFINITY_MASK", "0.1"}};
  auto intel =
      select_devices(test::fixture_inventory("intel-max-arc"), config("backend: oneapi\n"), ze);
  ASSERT_TRUE(intel.ok()) << intel.error().message;
  ASSERT_EQ(intel->devices.size(), 1u);
  EXPECT_EQ(intel->devices[0].index, 0);
  // Inside an allocation, Slurm's variables are its own numbering: no restriction here.
  in.allocation_governs = true;
  auto slurm = select_devices(h100, config("devices: all\n"), in);
  ASSERT_TRUE(slurm.ok());
  EXPECT_EQ(slurm->devices.size(), 8u);
}

TEST(StrictSelection, ConflictingVendorVariablesAreRemovedOnTheVendorsPath) {
  const auto& mi300x = test::fixture_inventory("mi300x-8x");
  SelectInputs in;
  in.caller_env = {{"CUDA_VISIBLE_DEVICES", "0"}, {"GPU_DEVICE_ORDINAL", "1"}, {"PATH", "/bin"}};
  auto s = select_devices(mi300x, config("devices: 2\n"), in);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->unset, (std::vector<std::string>{"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}));
  auto shell = selection_to_shell(*s);
  EXPECT_NE(shell.find("\nunset CUDA_VISIBLE_DEVICES GPU_DEVICE_ORDINAL\n"), std::string::npos)
      << shell;
  EXPECT_EQ(selection_to_json(*s)["unset"].size(), 2u);
  // On NVIDIA the same variable is the vendor's own: kept and used as a restriction.
  auto n = select_devices(test::fixture_inventory("h100-8x"), config("devices: all\n"), in);
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->unset.empty());
}

TEST(StrictProbe, ForeignDriversArePassthroughAndTakeNoVisibleIndex) {
  test::TempDir dir;
  test::copy_tree(test::fixture_host("h100-8x"), dir.path());
  // 0000:18:00.0 (index 0 on the real fixture) handed to a VM; 0000:2a:00.0 to pci-stub.
  auto rebind = [&](const std::string& bus, const std::string& driver) {
    auto dev = dir / ("sys/bus/pci/devices/" + bus);
    auto link = dev + "/driver";
    ASSERT_EQ(::unlink(link.c_str()), 0) << link;
    ::mkdir((dir / "sys/bus/pci/drivers/" + driver).c_str(), 0755);
    test::make_symlink("/sys/bus/pci/drivers/" + driver, link);
  };
  rebind("0000:18:00.0", "vfio-pci");
  rebind("0000:2a:00.0", "pci-stub");
  auto inv = test::probe_root(dir.path());
  const auto* vfio = test::find_device(inv, "0000:18:00.0");
  const auto* stub = test::find_device(inv, "0000:2a:00.0");
  ASSERT_TRUE(vfio && stub);
  EXPECT_EQ(vfio->status, DeviceStatus::passthrough);
  EXPECT_EQ(stub->status, DeviceStatus::passthrough);
  EXPECT_EQ(to_string(vfio->status), "passthrough");
  EXPECT_FALSE(vfio->usable());
  // The six GPUs CUDA sees are 0..5 in bus order; the passthrough ones come after.
  const auto* third = test::find_device(inv, "0000:3a:00.0");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->index, 0);
  EXPECT_EQ(vfio->index, 6);
  EXPECT_EQ(stub->index, 7);
  auto s = select_devices(inv, config("devices: all\n"), {});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->devices.size(), 6u);
  EXPECT_EQ(env_of(*s)["CUDA_VISIBLE_DEVICES"], "0,1,2,3,4,5");
  auto listed = select_devices(inv, config("devices: [0000:18:00.0]\n"), {});
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.error().message.find("passthrough"), std::string::npos)
      << listed.error().message;
}

TEST(StrictProbe, ImplausibleMemorySizesAreAbsentWithAWarning) {
  test::TempDir dir;
  test::copy_tree(test::fixture_host("mi300x-8x"), dir.path());
  const auto& first = test::fixture_inventory("mi300x-8x").devices.front();
  auto file = dir / ("sys/bus/pci/devices/" + first.pci.address.str() + "/mem_info_vram_total");
  test::write_file(file, "18446744073709551615\n");
  auto inv = test::probe_root(dir.path());
  const auto* d = test::find_device(inv, first.pci.address.str());
  ASSERT_TRUE(d);
  // The corrupt value is gone; the registry's figure for the model stands in for it.
  EXPECT_EQ(d->memory_total_bytes, std::optional<uint64_t>(192ull << 30));  // MI300X: 192 GiB
  bool warned = false;
  for (const auto& w : inv.diagnostics.warnings())
    warned = warned || w.find("implausible size") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(StrictProbe, WarningsNeverCarryRawControlCharacters) {
  EXPECT_EQ(escape_control("a\nb\tc\x1b[2J\x7f\xc2\x9b\xc3\xa9"),
            "a\\nb\\tc\\x1b[2J\\x7f\\xc2\\x9b\xc3\xa9");  // é stays
  test::TempDir dir;
  test::copy_tree(test::fixture_host("h100-8x"), dir.path());
  // A directory name with a newline and an escape sequence, as a hostile tree may hold.
  ::mkdir((dir / "sys/bus/pci/devices/evil\n[FAKE] line\x1b[31m").c_str(), 0755);
  auto inv = test::probe_root(dir.path());
  bool named = false;
  for (const auto& w : inv.diagnostics.warnings()) {
    for (unsigned char c : w) EXPECT_FALSE(c < 0x20 || c == 0x7f) << w;
    named = named || w.find("evil\\n[FAKE] line\\x1b[31m") != std::string::npos;
  }
  EXPECT_TRUE(named);
}

TEST(StrictPython, ATimedOutProbeTakesItsWholeProcessGroup) {
  test::TempDir dir;
  auto pidfile = dir / "child.pid";
  auto script = dir / "python";
  // A wrapper that starts a helper and never answers: both must be gone after the timeout.
  test::write_file(script, "#!/bin/sh\nsleep 300 &\necho $! > " + pidfile + "\nsleep 300\n");
  ::chmod(script.c_str(), 0755);
  auto r = query_sys_path(script, std::chrono::milliseconds(500));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no answer"), std::string::npos);
  auto pid_text = slurp(pidfile);
  auto pid = parse_int(trim(pid_text));
  ASSERT_TRUE(pid) << pid_text;
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    auto stat = slurp("/proc/" + std::to_string(*pid) + "/stat");
    gone = stat.empty() || stat.find(") Z") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "the helper " << *pid << " outlived the timed-out probe";
  if (!gone) ::kill(static_cast<pid_t>(*pid), SIGKILL);
}

}  // namespace anygpu
