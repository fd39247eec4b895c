// CDI: generated specs parse back (ours and yaml-cpp's view), the version rules, names for
// discovered devices, and malformed spec files ending in clear errors.
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "cdi/cdi.h"
#include "cdi/cdi_version.h"
#include "test_support.h"

namespace anygpu {

namespace {

HostRoot host_at(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  return HostRoot(o);
}

// prefix: hostPath names the fixture's files; otherwise the spec names them as the host does.
std::string generate(const std::string& fixture, const std::string& vendor, bool prefix = false) {
  auto spec = generate_cdi_spec(host_at(test::fixture_host(fixture)),
                                test::fixture_inventory(fixture), vendor, {.host_view = !prefix});
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : std::string();
}

const CdiDevice* device(const CdiSpec& s, const std::string& name) {
  for (const auto& d : s.devices)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

TEST(CdiGenerate, NvidiaSpecParsesBackWithEveryName) {
  auto text = generate("h100-8x", "nvidia");
  auto spec = parse_cdi_spec(text, "gen.yaml");
  ASSERT_TRUE(spec) << spec.error().message << "\n" << text;
  EXPECT_EQ(spec->kind, "nvidia.com/gpu");
  // Names start with a digit and nothing newer is used: 0.5.0 is the minimum.
  EXPECT_EQ(spec->cdi_version, "0.5.0");
  EXPECT_EQ(spec->minimum_version, "0.5.0");
  EXPECT_EQ(spec->devices.size(), 8u * 3 + 1);  // index, bus id, uuid per GPU, and "all"
  const auto* d0 = device(*spec, "0");
  ASSERT_NE(d0, nullptr);
  // CUDA computes through /dev/nvidiaN; EGL's device platform and Vulkan open the GPU's DRM
  // nodes, which nvidia-ctk's spec gives each GPU too.
  EXPECT_EQ(d0->device_paths,
            (std::vector<std::string>{"/dev/nvidia0", "/dev/dri/card1", "/dev/dri/renderD128"}));
  const auto* by_bus = device(*spec, "0000:18:00.0");
  ASSERT_NE(by_bus, nullptr);
  EXPECT_EQ(by_bus->device_paths, d0->device_paths);
  ASSERT_NE(device(*spec, "GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08"), nullptr);
  EXPECT_EQ(device(*spec, "all")->device_paths.size(), 8u * 3);
  // /dev/nvidia-modeset is withheld (display only), as `run --container` withholds it.
  EXPECT_EQ(
      spec->common_device_paths,
      (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}));

  // Any YAML reader sees the same document: "0" stays a string, permissions exclude mknod.
  auto doc = YAML::Load(text);
  EXPECT_EQ(doc["devices"][0]["name"].Scalar(), "0");
  EXPECT_EQ(doc["devices"][0]["containerEdits"]["deviceNodes"][0]["permissions"].Scalar(), "rw");
  EXPECT_EQ(doc["containerEdits"]["env"][0].Scalar(), "NVIDIA_VISIBLE_DEVICES=void");
  EXPECT_FALSE(doc["devices"][0]["containerEdits"]["deviceNodes"][0]["hostPath"]);
}

TEST(CdiGenerate, SimulatedHostPrefixesHostPaths) {
  auto root = test::fixture_host("mi300x-8x");
  auto text = generate("mi300x-8x", "amd", true);
  auto spec = parse_cdi_spec(text, "gen.yaml");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->kind, "amd.com/gpu");
  const auto* d = device(*spec, "0");
  ASSERT_NE(d, nullptr);
  // ROCm computes through /dev/kfd and the render node; the card node is display.
  EXPECT_EQ(d->device_paths, (std::vector<std::string>{"/dev/dri/renderD128"}));
  EXPECT_EQ(d->host_paths, (std::vector<std::string>{root + "/dev/dri/renderD128"}));
  EXPECT_EQ(spec->common_device_paths, (std::vector<std::string>{"/dev/kfd"}));
}

TEST(CdiGenerate, EveryVendorOfEveryFixture) {
  for (const auto* fixture : {"h100-8x", "mi300x-8x", "ascend-910b-8x", "intel-max-arc",
                              "hygon-dcu", "workstation-mixed", "laptop-hybrid"}) {
    const auto& inv = test::fixture_inventory(fixture);
    std::set<std::string> vendors;
    for (const auto& d : inv.devices) vendors.insert(d.vendor);
    for (const auto& v : vendors) {
      auto text = generate(fixture, v, true);
      auto spec = parse_cdi_spec(text, std::string(fixture) + ".yaml");
      ASSERT_TRUE(spec) << fixture << " " << v << ": " << spec.error().message << "\n" << text;
      const auto* vendor = Registry::builtin().vendor(v);
      EXPECT_EQ(spec->kind, std::string(vendor->cdi_kind));
      EXPECT_EQ(spec->cdi_version, spec->minimum_version);
      // The render node of each device, for every vendor whose stack opens it.
      bool render = std::find(vendor->container.drm.begin(), vendor->container.drm.end(),
                              "render") != vendor->container.drm.end();
      for (const auto* d : inv.of_vendor(v)) {
        if (!d->render_node || !render) continue;
        // A partitioned device is one entry per partition ("1:0"), each with the render node
        // it opens (an Intel tile: its card's).
        std::vector<std::string> names;
        if (d->partitioning)
          for (const auto& p : d->partitions)
            names.push_back(std::to_string(d->index) + ":" + std::to_string(p.index));
        else
          names.push_back(std::to_string(d->index));
        for (const auto& name : names) {
          const auto* entry = device(*spec, name);
          ASSERT_NE(entry, nullptr) << fixture << " " << v << " " << name;
          EXPECT_NE(
              std::find(entry->device_paths.begin(), entry->device_paths.end(), *d->render_node),
              entry->device_paths.end())
              << fixture << " " << v << " device " << name;
        }
      }
    }
  }
}

TEST(CdiGenerate, AscendSharedNodesAndDriverMounts) {
  auto text = generate("ascend-910b-8x", "ascend");
  auto spec = parse_cdi_spec(text, "gen.yaml");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->kind, "huawei.com/npu");
  EXPECT_EQ(spec->common_device_paths,
            (std::vector<std::string>{"/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"}));
  // Device 0 in PCI order is the NPU with physical id 4.
  EXPECT_EQ(device(*spec, "0")->device_paths, (std::vector<std::string>{"/dev/davinci4"}));
  // Ascend's own numbering (ASCEND_VISIBLE_DEVICES=4 is /dev/davinci4) by the node's name.
  ASSERT_TRUE(device(*spec, "davinci4"));
  EXPECT_EQ(device(*spec, "davinci4")->device_paths, (std::vector<std::string>{"/dev/davinci4"}));
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(device(*spec, "davinci" + std::to_string(i))) << i;
  // Other vendors number by index only.
  auto h100 = parse_cdi_spec(generate("h100-8x", "nvidia"), "nv.yaml");
  ASSERT_TRUE(h100);
  for (const auto& d : h100->devices) EXPECT_FALSE(d.name.starts_with("nvidia")) << d.name;
  auto doc = YAML::Load(text);
  // The whole driver directory (HCCL reads driver/topo beside driver/lib64), read-only.
  bool driver_dir = false;
  for (const auto& m : doc["containerEdits"]["mounts"]) {
    EXPECT_EQ(m["options"][0].Scalar(), "ro");
    if (m["containerPath"].Scalar() == "/usr/local/Ascend/driver") driver_dir = true;
  }
  EXPECT_TRUE(driver_dir) << text;
}

TEST(CdiGenerate, NoDevicesIsAHostError) {
  auto h100 = host_at(test::fixture_host("h100-8x"));
  auto r = generate_cdi_spec(h100, test::fixture_inventory("h100-8x"), "amd");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::host);
  auto u = generate_cdi_spec(h100, test::fixture_inventory("h100-8x"), "nosuch");
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().kind, ErrorKind::bad_input);
}

TEST(CdiVersion, MinimumFollowsTheReferenceRules) {
  EXPECT_EQ(minimum_cdi_version({}), "0.3.0");
  CdiFeatures f;
  f.mount_type = true;
  EXPECT_EQ(minimum_cdi_version(f), "0.4.0");
  f.host_path = true;
  EXPECT_EQ(minimum_cdi_version(f), "0.5.0");
  f.class_with_dot = true;
  EXPECT_EQ(minimum_cdi_version(f), "0.6.0");
  f.additional_gids = true;
  EXPECT_EQ(minimum_cdi_version(f), "0.7.0");
  EXPECT_TRUE(is_known_cdi_version("0.8.0"));
  EXPECT_FALSE(is_known_cdi_version("0.9.0"));
  EXPECT_LT(compare_cdi_versions("0.4.0", "0.5.0"), 0);
}

TEST(CdiRead, FindsSpecsAndNamesForDevicesUnderARoot) {
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  auto inv = test::probe_root(root);
  // Shared control nodes: only those the host has (a runtime refuses a missing node).
  ASSERT_EQ(::unlink((root + "/dev/nvidia-uvm-tools").c_str()), 0);
  auto spec = generate_cdi_spec(host_at(root), inv, "nvidia");
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->find("nvidia-uvm-tools"), std::string::npos);
  test::write_file(root + "/etc/cdi/anygpu-nvidia.yaml", *spec);
  // A vendor spec in the runtime directory for a different kind is ignored for names.
  test::write_file(root + "/var/run/cdi/other.json",
                   R"({"cdiVersion":"0.3.0","kind":"example.com/fpga","devices":[)"
                   R"({"name":"f0","containerEdits":{"deviceNodes":[{"path":"/dev/fpga0"}]}}]})");
  HostOptions o;
  o.root = root;
  HostRoot host(o);
  auto specs = read_cdi_specs(host);
  ASSERT_TRUE(specs) << specs.error().message;
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ((*specs)[0].file, "/etc/cdi/anygpu-nvidia.yaml");
  EXPECT_EQ((*specs)[1].priority, 1);
  // Host paths are reported as the host sees them.
  EXPECT_EQ((*specs)[0].devices[0].host_paths[0], "/dev/nvidia0");

  std::vector<Device> chosen{inv.devices[2], inv.devices[5]};
  auto edits = container_edits(host, "nvidia", chosen);
  ASSERT_TRUE(edits);
  auto choice = choose_cdi_names(*specs, *edits);
  ASSERT_TRUE(choice.names);
  EXPECT_EQ(*choice.names, (std::vector<std::string>{"nvidia.com/gpu=2", "nvidia.com/gpu=5"}));
  EXPECT_TRUE(choice.warnings.empty());

  // A device the spec does not describe: no names, so the caller falls back to nodes.
  auto stranger = inv.devices[0];
  stranger.device_nodes = {"/dev/nvidia42"};
  stranger.minor = 42;
  test::write_file(root + "/dev/nvidia42", "");
  std::vector<Device> strangers{stranger};
  auto stranger_edits = container_edits(host, "nvidia", strangers);
  ASSERT_TRUE(stranger_edits);
  EXPECT_FALSE(choose_cdi_names(*specs, *stranger_edits).names);
  EXPECT_FALSE(choose_cdi_names(*specs, SelectionEdits{}).names);
}

TEST(CdiRead, AbsentDirectoriesAreNoSpecs) {
  test::TempDir tmp;
  HostOptions o;
  o.root = tmp.path();
  auto specs = read_cdi_specs(HostRoot(o));
  ASSERT_TRUE(specs);
  EXPECT_TRUE(specs->empty());
}

TEST(CdiRead, OneBadFileDoesNotHideTheOthersInAScan) {
  test::TempDir tmp;
  test::write_file(tmp / "etc/cdi/good.yaml",
                   "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: x\n");
  test::write_file(tmp / "etc/cdi/bad.json", "{\"cdiVersion\": \"0.3.0\",\n \"kind\": }\n");
  test::write_file(tmp / "etc/cdi/notes.txt", "not a spec");
  HostOptions o;
  o.root = tmp.path();
  HostRoot host(o);
  auto scan = scan_cdi_specs(host);
  ASSERT_EQ(scan.specs.size(), 1u);
  ASSERT_EQ(scan.errors.size(), 1u);
  EXPECT_NE(scan.errors[0].message.find("/etc/cdi/bad.json:2:10: invalid JSON"), std::string::npos)
      << scan.errors[0].message;
  auto strict = read_cdi_specs(host);
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.error().kind, ErrorKind::bad_input);
}

TEST(CdiParse, MalformedSpecsEndInClearErrors) {
  const std::string ok_device = "devices:\n- name: gpu0\n";
  struct Case {
    std::string file, text, fragment;
  };
  std::vector<Case> cases = {
      {"t.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"a.com/b\", \"devices\": [", "t.json:1:"},
      {"t.json", "{\"cdiVersion\": 0.5.0.1}", "t.json:1:"},
      {"t.yaml", "cdiVersion: [\n", "t.yaml:"},
      {"t.yaml", "\x01\x02garbage", "t.yaml"},
      {"t.yaml", "- just\n- a list\n", "t.yaml:1:1: CDI spec: expected a mapping"},
      {"t.yaml", "kind: a.com/b\n" + ok_device, "missing key 'cdiVersion'"},
      {"t.yaml", "cdiVersion: 0.3.0\n" + ok_device, "missing key 'kind'"},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: a.com/b\n", "missing key 'devices'"},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: a.com/b\ndevices: []\n", "at least one device"},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: a.com/b\nkindd: x\n" + ok_device,
       "t.yaml:3:1: unknown key 'kindd'"},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: nvidia\n" + ok_device, "t.yaml:2:7: kind \"nvidia\""},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: a.com/-b\n" + ok_device, "kind class \"-b\""},
      {"t.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices:\n- name: gpu/0\n",
       "t.yaml:4:9: device name \"gpu/0\""},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: x\n- name: x\n",
       "t.yaml:5:9: device name 'x' appears twice"},
      {"t.yaml", "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: \"0\"\n",
       "t.yaml:1:13: cdiVersion 0.3.0 is too old for this content, which needs 0.5.0"},
      {"t.yaml", "cdiVersion: 9.0.0\nkind: a.com/b\n" + ok_device, "not a released CDI version"},
      {"t.yaml",
       "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: x\n  containerEdits:\n"
       "    deviceNodes:\n    - path: dev/x\n",
       "t.yaml:7:13: path: \"dev/x\" is not absolute"},
      {"t.yaml",
       "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: x\n  containerEdits:\n"
       "    deviceNodes:\n    - hostPath: /dev/x\n",
       "missing key 'path'"},
      {"t.yaml",
       "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: x\n  containerEdits:\n"
       "    env: [NOEQUALS]\n",
       "\"NOEQUALS\" is not NAME=VALUE"},
      {"t.yaml",
       "cdiVersion: 0.3.0\nkind: a.com/b\ndevices:\n- name: x\n  containerEdits:\n"
       "    deviceNodes:\n    - {path: /dev/x, major: -1}\n",
       "major: expected a whole number"},
      {"t.yaml", std::string("cdiVersion: 0.3.0\0", 18), "NUL bytes"},
      {"t.yaml", std::string(5 << 20, '#'), "larger than 4 MiB"},
  };
  for (const auto& c : cases) {
    auto r = parse_cdi_spec(c.text, c.file);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_NE(r.error().message.find(c.fragment), std::string::npos)
        << "want: " << c.fragment << "\ngot:  " << r.error().message;
  }
}

TEST(CdiParse, AcceptsWhatRuntimesAccept) {
  // nvidia-ctk style: hooks, mounts without type, an unqualified-looking uuid name.
  auto r = parse_cdi_spec(R"({
  "cdiVersion": "0.5.0", "kind": "nvidia.com/gpu",
  "devices": [{"name": "GPU-1f8e", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia0"}]}}],
  "containerEdits": {"env": ["NVIDIA_VISIBLE_DEVICES=void"],
    "hooks": [{"hookName": "createContainer", "path": "/usr/bin/nvidia-cdi-hook", "args": ["x"]}],
    "mounts": [{"hostPath": "/usr/lib/libcuda.so.1", "containerPath": "/usr/lib/libcuda.so.1",
                "options": ["ro", "nosuid", "nodev", "bind"]}]}
})",
                          "nvidia.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->minimum_version, "0.3.0");
  EXPECT_EQ(r->devices[0].host_paths, (std::vector<std::string>{"/dev/nvidia0"}));
}

}  // namespace anygpu

namespace anygpu {

namespace {

// A spec for nvidia.com/gpu whose device "0" is /dev/nvidia0 (as a generated one) plus `extra`
// YAML for its top-level containerEdits.
CdiSpec hostile(const std::string& top_level_edits) {
  std::string text =
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n"
      "- name: \"0\"\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\n"
      "    - path: /dev/dri/card1\n    - path: /dev/dri/renderD128\n"
      "containerEdits:\n  deviceNodes:\n  - path: /dev/nvidiactl\n  - path: /dev/nvidia-uvm\n"
      "  - path: /dev/nvidia-uvm-tools\n" +
      top_level_edits;
  auto spec = parse_cdi_spec(text, "/etc/cdi/hostile.yaml");
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : CdiSpec{};
}

}  // namespace

TEST(CdiTrust, ASpecGrantingMoreThanTheSelectionIsNotUsedByName) {
  const auto& inv = test::fixture_inventory("h100-8x");
  HostOptions o;
  o.root = test::fixture_host("h100-8x");
  o.load_libraries = false;
  HostRoot host(o);
  std::vector<const Device*> first{inv.of_vendor("nvidia")[0]};
  auto edits = container_edits(host, "nvidia", first);
  ASSERT_TRUE(edits);

  // The plain spec is used by name.
  auto plain = choose_cdi_names({hostile("")}, *edits);
  ASSERT_TRUE(plain.names);
  EXPECT_EQ(*plain.names, std::vector<std::string>{"nvidia.com/gpu=0"});
  EXPECT_TRUE(cdi_spec_warnings(hostile("")).empty());

  struct Case {
    std::string edits, why;
  };
  std::vector<Case> cases = {
      {"  - path: /dev/nvidia1\n  - path: /dev/mem\n", "add /dev/nvidia1, /dev/mem"},
      {"  mounts:\n  - {hostPath: /, containerPath: /host}\n", "read-write mount of the host's /"},
      {"  mounts:\n  - {hostPath: /etc/, containerPath: /h, options: [rw]}\n",
       "read-write mount of the host's /etc"},
      {"  hooks:\n  - {hookName: createRuntime, path: /usr/bin/x}\n", "createRuntime hook"},
      {"  hooks:\n  - {hookName: prestart, path: /usr/bin/x}\n", "prestart hook"},
      {"  env: [LD_PRELOAD=/tmp/x.so]\n", "LD_PRELOAD"},
      {"  env: [LD_AUDIT=/tmp/x.so]\n", "LD_AUDIT"},
  };
  for (const auto& c : cases) {
    auto spec = hostile(c.edits);
    auto choice = choose_cdi_names({spec}, *edits);
    EXPECT_FALSE(choice.names) << c.edits;
    ASSERT_EQ(choice.warnings.size(), 1u) << c.edits;
    EXPECT_NE(choice.warnings[0].find("/etc/cdi/hostile.yaml covers the selected devices"),
              std::string::npos);
    EXPECT_NE(choice.warnings[0].find(c.why), std::string::npos) << choice.warnings[0];
    EXPECT_NE(choice.warnings[0].find("passing device nodes explicitly"), std::string::npos);
    // `cdi list` marks the same spec.
    auto marks = cdi_spec_warnings(spec);
    ASSERT_FALSE(marks.empty()) << c.edits;
  }
  // A read-only mount of / and a createContainer hook are not risks by themselves.
  auto benign = hostile(
      "  mounts:\n  - {hostPath: /usr/lib/x, containerPath: /usr/lib/x, options: [ro]}\n"
      "  hooks:\n  - {hookName: createContainer, path: /usr/bin/nvidia-ctk}\n");
  EXPECT_TRUE(choose_cdi_names({benign}, *edits).names);
  // A spec lacking a shared node the container needs is not used either.
  auto thin = parse_cdi_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n"
      "    deviceNodes:\n    - path: /dev/nvidia0\n    - path: /dev/dri/card1\n"
      "    - path: /dev/dri/renderD128\n",
      "/etc/cdi/thin.yaml");
  ASSERT_TRUE(thin);
  auto lacking = choose_cdi_names({*thin}, *edits);
  EXPECT_FALSE(lacking.names);
  ASSERT_EQ(lacking.warnings.size(), 1u);
  EXPECT_NE(lacking.warnings[0].find("it lacks /dev/nvidiactl"), std::string::npos);
  // A device entry holding another GPU's node does not stand for GPU 0 at all.
  auto wide_device = parse_cdi_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n"
      "    deviceNodes:\n    - path: /dev/nvidia0\n    - path: /dev/dri/card1\n"
      "    - path: /dev/dri/renderD128\n    - path: /dev/nvidia1\n",
      "/etc/cdi/w.yaml");
  ASSERT_TRUE(wide_device);
  EXPECT_FALSE(choose_cdi_names({*wide_device}, *edits).names);
}

}  // namespace anygpu
