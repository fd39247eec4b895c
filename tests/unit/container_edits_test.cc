// The container-edits seam: the registry's container section turned into nodes, mounts, env and
// groups, and the property that matters most — for every fixture host and many selections, the
// CDI spec anygpu generates and the `run --container` plan hand the container exactly the same
// device nodes, mounts and environment. Both sides are read back from their rendered forms (the
// spec's YAML, the engine argv), not from the shared struct, so a renderer that drops or adds
// anything fails here.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "cdi/cdi.h"
#include "container/container_edits.h"
#include "launch/plan.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "select/units.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

HostRoot host_at(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  return HostRoot(o);
}

// What a container is handed, as comparable sets.
struct Granted {
  std::set<std::pair<std::string, std::string>> nodes;          // host, container
  std::set<std::tuple<std::string, std::string, bool>> mounts;  // host, container, ro
  std::set<std::string> env;                                    // NAME=VALUE
};

void collect_edits(const YAML::Node& edits, Granted& g) {
  if (!edits) return;
  for (const auto& n : edits["deviceNodes"]) {
    auto path = n["path"].Scalar();
    g.nodes.insert({n["hostPath"] ? n["hostPath"].Scalar() : path, path});
  }
  for (const auto& m : edits["mounts"]) {
    bool ro = false;
    for (const auto& o : m["options"]) ro = ro || o.Scalar() == "ro";
    g.mounts.insert({m["hostPath"].Scalar(), m["containerPath"].Scalar(), ro});
  }
  for (const auto& e : edits["env"]) g.env.insert(e.Scalar());
}

// The spec's devices named by the selected units plus its top-level edits, as a CDI runtime
// would apply them for `--device KIND=<index>` of each selected device, `KIND=<index>:<partition>`
// of each selected partition.
Granted from_cdi(const std::string& spec_text, const Selection& sel) {
  Granted g;
  auto doc = YAML::Load(spec_text);
  for (size_t i = 0; i < sel.devices.size(); ++i) {
    auto name = std::to_string(sel.devices[i].index);
    if (const auto* p = sel.partition_of(i)) name += ":" + std::to_string(p->index);
    bool found = false;
    for (const auto& dev : doc["devices"])
      if (dev["name"].Scalar() == name) {
        collect_edits(dev["containerEdits"], g);
        found = true;
      }
    EXPECT_TRUE(found) << "no CDI device " << name;
  }
  collect_edits(doc["containerEdits"], g);
  return g;
}

// Splits "type=bind,src=…,dst=…[,ro]" (fields without quotes, as the fixtures' paths are).
std::tuple<std::string, std::string, bool> parse_mount(const std::string& arg) {
  std::string src, dst;
  bool ro = false;
  size_t start = 0;
  while (start <= arg.size()) {
    auto end = arg.find(',', start);
    if (end == std::string::npos) end = arg.size();
    auto field = arg.substr(start, end - start);
    if (field.starts_with("src=")) src = field.substr(4);
    if (field.starts_with("dst=")) dst = field.substr(4);
    if (field == "ro") ro = true;
    start = end + 1;
  }
  return {src, dst, ro};
}

// The engine argv up to the image, minus what is not a container edit: the workspace mount and
// the process's own environment (the selection's variables, the renumbered visible-devices
// variable, PYTHONUNBUFFERED).
Granted from_plan(const LaunchPlan& plan, const Selection& sel, const std::string& image) {
  Granted g;
  std::set<std::string> process_env = {"PYTHONUNBUFFERED"};
  for (const auto& [k, v] : sel.env) process_env.insert(k);
  const auto* vendor = Registry::builtin().vendor(sel.vendor);
  process_env.insert(std::string(vendor->visible_devices_env));
  const auto& a = plan.argv;
  for (size_t i = 0; i + 1 < a.size() && a[i] != image; ++i) {
    if (a[i] == "--device") {
      auto colon = a[i + 1].rfind(':');
      g.nodes.insert({a[i + 1].substr(0, colon), a[i + 1].substr(colon + 1)});
    } else if (a[i] == "--mount") {
      auto m = parse_mount(a[i + 1]);
      if (std::get<1>(m) != "/workspace") g.mounts.insert(m);
    } else if (a[i] == "-e") {
      auto name = a[i + 1].substr(0, a[i + 1].find('='));
      if (!process_env.count(name)) g.env.insert(a[i + 1]);
    }
  }
  return g;
}

std::string with_backend(const std::string& vendor, const std::string& devices) {
  return cat({"backend: ", vendor, "\n", devices});
}

// Counts, and lists of the units select hands out alone (a whole device's index, a partition's
// id; a MIG instance without its UUID is never handed out).
std::vector<std::string> selections_for(const Inventory& inv, const std::string& vendor) {
  std::vector<std::string> ids;
  for (const auto& u : selection_units(inv)) {
    if (u.device->vendor != vendor) continue;
    auto id = u.partition ? u.partition->id : std::to_string(u.device->index);
    auto one = parse_accelerator_config(with_backend(vendor, "devices: [\"" + id + "\"]\n"), "c");
    if (one && select_devices(inv, *one, {})) ids.push_back(id);
  }
  std::vector<std::string> configs = {"devices: all\n", "devices: 1\n"};
  if (ids.size() >= 2) {
    configs.push_back("devices: 2\n");
    configs.push_back(cat({"devices: [\"", ids.back(), "\", \"", ids.front(), "\"]\n"}));
    configs.push_back(cat({"devices: [\"", ids[ids.size() / 2], "\"]\n"}));
  }
  for (auto& c : configs) c = with_backend(vendor, c);
  return configs;
}

// Every fixture host with a golden (a host added as data is covered without touching this).
std::vector<std::string> fixture_names() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() + "/tests/hosts"))
    if (std::filesystem::exists(e.path() / "expected.json"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(ContainerEdits, CdiAndRunContainerGrantTheSameForEveryFixtureAndSelection) {
  int compared = 0;
  for (const auto& fixture : fixture_names()) {
    auto root = test::fixture_host(fixture);
    auto host = host_at(root);
    const auto& inv = test::fixture_inventory(fixture);
    std::set<std::string> vendors;
    for (const auto& d : inv.devices) vendors.insert(d.vendor);
    for (const auto& vendor : vendors) {
      // A vendor whose only devices are never selected (a suspended laptop GPU) has nothing
      // to compare.
      auto of_vendor = inv.of_vendor(vendor);
      if (std::none_of(of_vendor.begin(), of_vendor.end(),
                       [](const Device* d) { return d->status == DeviceStatus::ok; }))
        continue;
      auto spec = generate_cdi_spec(host, inv, vendor);
      ASSERT_TRUE(spec) << fixture << " " << vendor << ": " << spec.error().message;
      for (const auto& config_text : selections_for(inv, vendor)) {
        SCOPED_TRACE(fixture + " " + config_text);
        auto config = parse_accelerator_config(config_text, "accelerator-config.yaml");
        ASSERT_TRUE(config) << config.error().message;
        auto sel = select_devices(inv, *config, {});
        ASSERT_TRUE(sel) << sel.error().message;
        ASSERT_EQ(sel->vendor, vendor);
        ASSERT_FALSE(sel->devices.empty());

        HostFacts facts;
        facts.root_prefix = root;
        facts.engines_on_path = {"podman"};
        facts.cwd = "/home/u/exp";
        auto edits = container_edits(host, vendor, sel->devices);
        ASSERT_TRUE(edits) << edits.error().message;
        facts.edits = std::move(*edits);
        LaunchOptions o;
        o.image = "localhost/exp:1";
        o.command = {"python", "train.py"};
        auto plan = plan_launch(*sel, o, facts, {}, std::nullopt);
        ASSERT_TRUE(plan) << plan.error().message;

        auto cdi = from_cdi(*spec, *sel);
        auto run = from_plan(*plan, *sel, *o.image);
        EXPECT_EQ(cdi.nodes, run.nodes);
        EXPECT_EQ(cdi.mounts, run.mounts);
        EXPECT_EQ(cdi.env, run.env);
        EXPECT_FALSE(run.nodes.empty());
        // Each selected device contributes a node of its own: nothing is shared by accident.
        for (const auto& d : facts.edits.devices) EXPECT_FALSE(d.edits.device_nodes.empty());
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 31);  // every fixture vendor, several selections each (31 before T-Head)
}

TEST(ContainerEdits, RegistryRulesPerVendor) {
  auto edits_of = [](const std::string& fixture, const std::string& vendor) {
    const auto& inv = test::fixture_inventory(fixture);
    auto e = container_edits(host_at(test::fixture_host(fixture)), vendor, inv.of_vendor(vendor));
    EXPECT_TRUE(e) << e.error().message;
    return *e;
  };
  auto paths = [](const std::vector<NodeEdit>& nodes) {
    std::vector<std::string> out;
    for (const auto& n : nodes) out.push_back(n.path);
    return out;
  };
  // NVIDIA: /dev/nvidiaN and the GPU's DRM nodes (EGL, Vulkan), modeset withheld (and said
  // so), the legacy hook turned off.
  auto nv = edits_of("h100-8x", "nvidia");
  EXPECT_EQ(paths(nv.devices[0].edits.device_nodes),
            (std::vector<std::string>{"/dev/nvidia0", "/dev/dri/card1", "/dev/dri/renderD128"}));
  for (const auto& d : nv.devices)
    EXPECT_EQ(paths(d.edits.device_nodes),
              (std::vector<std::string>{"/dev/nvidia" + std::to_string(*d.device->minor),
                                        *d.device->card_node, *d.device->render_node}));
  EXPECT_EQ(
      paths(nv.common.device_nodes),
      (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}));
  EXPECT_TRUE(std::any_of(nv.notes.begin(), nv.notes.end(), [](const std::string& n) {
    return n.starts_with("/dev/nvidia-modeset withheld");
  }));
  EXPECT_EQ(nv.common.env, std::vector<std::string>{"NVIDIA_VISIBLE_DEVICES=void"});
  // AMD: the render node, never the card node; /dev/kfd shared.
  auto amd = edits_of("mi300x-8x", "amd");
  for (const auto& d : amd.devices) {
    ASSERT_EQ(d.edits.device_nodes.size(), 1u);
    EXPECT_EQ(d.edits.device_nodes[0].path, *d.device->render_node);
  }
  EXPECT_EQ(paths(amd.common.device_nodes), std::vector<std::string>{"/dev/kfd"});
  // Intel: card and render node of the device itself.
  auto intel = edits_of("intel-max-arc", "intel");
  EXPECT_EQ(paths(intel.devices[0].edits.device_nodes),
            (std::vector<std::string>{*intel.devices[0].device->card_node,
                                      *intel.devices[0].device->render_node}));
  // Ascend: the whole driver directory, read-only (HCCL reads driver/topo).
  auto ascend = edits_of("ascend-910b-8x", "ascend");
  ASSERT_FALSE(ascend.common.mounts.empty());
  EXPECT_EQ(ascend.common.mounts[0].container_path, "/usr/local/Ascend/driver");
  EXPECT_EQ(ascend.common.mounts[0].host_path,
            test::fixture_host("ascend-910b-8x") + "/usr/local/Ascend/driver");
  EXPECT_TRUE(ascend.common.mounts[0].read_only());
}

TEST(ContainerEdits, GroupsComeFromTheHostsEtcGroup) {
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("hygon-dcu"), root);
  // render is absent: only video is added, and the edits say why.
  test::write_file(root + "/etc/group", "root:x:0:\nvideo:x:39:u\n");
  auto inv = test::probe_root(root);
  auto e = container_edits(host_at(root), "hygon", inv.of_vendor("hygon"));
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->common.additional_gids, std::vector<uint32_t>{39});
  EXPECT_TRUE(std::any_of(e->notes.begin(), e->notes.end(), [](const std::string& n) {
    return n.starts_with("group render is not in the host's /etc/group");
  }));
  // A malformed /etc/group: no groups, a warning naming the file, the nodes still there.
  test::write_file(root + "/etc/group", "video:x:notanumber:\n");
  e = container_edits(host_at(root), "hygon", inv.of_vendor("hygon"));
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->common.additional_gids.empty());
  EXPECT_TRUE(std::any_of(e->notes.begin(), e->notes.end(), [](const std::string& n) {
    return n.starts_with("warning: ") && n.find("/etc/group") != std::string::npos;
  }));
  EXPECT_FALSE(e->common.device_nodes.empty());
}

TEST(ContainerEdits, AbsentFilesAreLeftOutWithANote) {
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("ascend-910b-8x"), root);
  std::filesystem::remove_all(root + "/usr/local/dcmi");
  std::filesystem::remove(root + "/dev/hisi_hdc");
  auto inv = test::probe_root(root);
  auto e = container_edits(host_at(root), "ascend", inv.of_vendor("ascend"));
  ASSERT_TRUE(e);
  auto all = e->merged();
  for (const auto& m : all.mounts) EXPECT_NE(m.container_path, "/usr/local/dcmi");
  for (const auto& n : all.device_nodes) EXPECT_NE(n.path, "/dev/hisi_hdc");
  EXPECT_TRUE(std::any_of(e->notes.begin(), e->notes.end(), [](const std::string& n) {
    return n == "driver path /usr/local/dcmi is absent on this host: not mounted";
  }));
  EXPECT_TRUE(std::any_of(e->notes.begin(), e->notes.end(), [](const std::string& n) {
    return n == "shared node /dev/hisi_hdc is absent on this host: not passed";
  }));
}

TEST(ContainerEdits, MergeDropsDuplicatesAndLaterEnvWins) {
  ContainerEdits a, b;
  a.add_node({"/dev/x", "/r/dev/x", {}, {}, {}});
  a.add_env("A", "1");
  a.add_gid(5);
  b.add_node({"/dev/x", "/r/dev/x", {}, {}, {}});
  b.add_node({"/dev/y", "/r/dev/y", {}, {}, {}});
  b.add_env("A", "2");
  b.add_gid(5);
  b.add_hook({"createContainer", "/usr/bin/h", {"h", "update"}, {}});
  b.add_mount({"/r/lib", "/lib", {"ro"}});
  a.merge(b);
  EXPECT_EQ(a.device_nodes.size(), 2u);
  EXPECT_EQ(a.env, std::vector<std::string>{"A=2"});
  EXPECT_EQ(a.additional_gids, std::vector<uint32_t>{5});
  EXPECT_EQ(a.hooks.size(), 1u);
  EXPECT_TRUE(a.mounts[0].read_only());
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(ContainerEdits{}.empty());
}

TEST(ContainerEdits, AnExtraSourceReachesEveryConsumer) {
  // A source outside the registry (what host driver files will be) is appended after the
  // default ones, and the engine argv carries its mount while its hook is reported as needing
  // CDI.
  struct DriverFiles final : EditSource {
    std::string_view name() const override { return "test driver files"; }
    void add(const EditRequest& r, SelectionEdits& out) const override {
      out.common.add_mount({r.host.outside("/etc/os-release"), "/etc/driver-info", {"ro"}});
      out.common.add_hook({"createContainer", "/usr/bin/true", {"true"}, {}});
    }
  } driver;
  std::vector<const EditSource*> sources(default_edit_sources().begin(),
                                         default_edit_sources().end());
  sources.push_back(&driver);
  const auto& inv = test::fixture_inventory("h100-8x");
  auto host = host_at(test::fixture_host("h100-8x"));
  auto e = container_edits(host, "nvidia", inv.of_vendor("nvidia"), Registry::builtin(), sources);
  ASSERT_TRUE(e);
  ASSERT_EQ(e->common.mounts.size(), 1u);
  EXPECT_EQ(e->common.hooks.size(), 1u);
  EXPECT_FALSE(e->common.device_nodes.empty());  // the default sources still ran first
}

TEST(ContainerEdits, WrongVendorIsBadInput) {
  const auto& inv = test::fixture_inventory("workstation-mixed");
  auto host = host_at(test::fixture_host("workstation-mixed"));
  auto mixed = container_edits(host, "nvidia", inv.of_vendor("amd"));
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().kind, ErrorKind::bad_input);
  auto unknown = container_edits(host, "nosuch", std::vector<const Device*>{});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown vendor 'nosuch'"), std::string::npos);
}

}  // namespace anygpu
