// A vendor that exists only as data: tests/registry/acme/vendors.yaml (not in data/vendors.yaml)
// is loaded through the same validator the build runs, and the made-up "acme" vendor goes
// through every layer a command uses — discovery, selection, `run --container` planning, CDI,
// Slurm gres, k8s labels and job resource, metrics (generic hwmon) — on the fixture
// tests/registry/acme-host. Nothing in the code names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cdi/cdi.h"
#include "cluster/gres.h"
#include "cluster/k8s.h"
#include "container/container_edits.h"
#include "launch/plan.h"
#include "metrics/backend.h"
#include "metrics/collector.h"
#include "probe/probe.h"
#include "registry/registry_yaml.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "test_support.h"

namespace anygpu {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const Registry& acme() {
  static auto loaded = [] {
    auto dir = test::source_dir() + "/tests/registry/acme/";
    auto r = load_registry(slurp(dir + "vendors.yaml"), dir + "vendors.yaml",
                           slurp(dir + "devices.yaml"), dir + "devices.yaml");
    EXPECT_TRUE(r) << r.error().message;
    return std::move(*r);
  }();
  static auto registry = loaded->registry();
  return registry;
}

std::string root() {
  return test::source_dir() + "/tests/registry/acme-host";
}

HostRoot host() {
  HostOptions o;
  o.root = root();
  o.load_libraries = false;
  return HostRoot(o);
}

const Inventory& inventory() {
  static auto inv = [] {
    auto h = host();
    return probe(h, acme());
  }();
  return inv;
}

Selection select_acme(const std::string& text) {
  auto cfg = parse_accelerator_config(text, "accelerator-config.yaml", acme());
  EXPECT_TRUE(cfg) << cfg.error().message;
  auto sel = select_devices(inventory(), *cfg, {}, acme());
  EXPECT_TRUE(sel) << sel.error().message;
  return *sel;
}

}  // namespace

TEST(MadeUpVendor, TheBuiltinRegistryDoesNotKnowIt) {
  EXPECT_EQ(Registry::builtin().vendor("acme"), nullptr);
  auto h = host();
  EXPECT_TRUE(probe(h).devices.empty());
}

TEST(MadeUpVendor, Detect) {
  const auto& inv = inventory();
  ASSERT_EQ(inv.devices.size(), 2u);
  const auto& d = inv.devices[1];
  EXPECT_EQ(d.vendor, "acme");
  EXPECT_EQ(d.index, 1);
  EXPECT_EQ(d.name, "Acme N1");  // from the test registry's devices.yaml
  EXPECT_EQ(d.arch, "acme1");
  ASSERT_TRUE(d.driver);
  EXPECT_EQ(d.driver->name, "acme_npu");
  EXPECT_EQ(d.driver->version, "3.2.1");
  EXPECT_EQ(d.device_nodes, std::vector<std::string>{"/dev/acme1"});
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_TRUE(std::any_of(inv.runtimes.begin(), inv.runtimes.end(), [](const auto& r) {
    return r.component == "acme-sdk" && r.version == "2.4.0";
  }));
}

TEST(MadeUpVendor, SelectByBackendName) {
  auto sel = select_acme("backend: acme\ndevices: [1]\n");
  EXPECT_EQ(sel.vendor, "acme");
  EXPECT_EQ(sel.torch_device, "cuda");
  auto has = [&](const std::string& k, const std::string& v) {
    return std::find(sel.env.begin(), sel.env.end(), EnvVar{k, v}) != sel.env.end();
  };
  EXPECT_TRUE(has("ACME_VISIBLE_DEVICES", "1"));
  EXPECT_TRUE(has("ACME_DEVICE_ORDER", "PCI_BUS_ID"));
  EXPECT_TRUE(has("ANYGPU_DIST_BACKEND", "gloo"));
}

TEST(MadeUpVendor, RunContainerAndCdiGrantTheSame) {
  auto sel = select_acme("backend: acme\ndevices: [1]\n");
  auto h = host();
  auto edits = container_edits(h, "acme", sel.devices, acme());
  ASSERT_TRUE(edits) << edits.error().message;
  HostFacts facts;
  facts.root_prefix = root();
  facts.engines_on_path = {"podman"};
  facts.cwd = "/w";
  facts.edits = *edits;
  LaunchOptions o;
  o.image = "localhost/exp:1";
  o.command = {"true"};
  auto plan = plan_launch(sel, o, facts, {}, std::nullopt, acme());
  ASSERT_TRUE(plan) << plan.error().message;
  std::vector<std::string> devices, mounts, env;
  for (size_t i = 0; i + 1 < plan->argv.size(); ++i) {
    if (plan->argv[i] == "--device") devices.push_back(plan->argv[i + 1]);
    if (plan->argv[i] == "--mount") mounts.push_back(plan->argv[i + 1]);
    if (plan->argv[i] == "-e") env.push_back(plan->argv[i + 1]);
  }
  auto r = root();
  // Its own node and the shared control node; the withheld display node is not passed.
  EXPECT_EQ(devices, (std::vector<std::string>{r + "/dev/acme1:/dev/acme1",
                                               r + "/dev/acme_ctl:/dev/acme_ctl"}));
  EXPECT_NE(std::find(mounts.begin(), mounts.end(),
                      "type=bind,src=" + r + "/opt/acme/lib,dst=/opt/acme/lib,ro"),
            mounts.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "ACME_VISIBLE_DEVICES=0"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "ACME_CONTAINER_DEVICES=void"), env.end());

  // As the host names its files (what read_cdi_specs reports), so the trust check compares
  // like with like.
  auto spec = generate_cdi_spec(h, inventory(), "acme", {.host_view = true}, acme());
  ASSERT_TRUE(spec) << spec.error().message;
  auto parsed = parse_cdi_spec(*spec, "acme.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message << "\n" << *spec;
  EXPECT_EQ(parsed->kind, "acme.example/npu");
  EXPECT_EQ(parsed->common_device_paths, std::vector<std::string>{"/dev/acme_ctl"});
  EXPECT_EQ(parsed->common_edits.env, std::vector<std::string>{"ACME_CONTAINER_DEVICES=void"});
  ASSERT_EQ(parsed->common_edits.mounts.size(), 1u);
  EXPECT_EQ(parsed->common_edits.mounts[0].container_path, "/opt/acme/lib");
  // The spec is trusted by name for exactly the selected device.
  auto choice = choose_cdi_names({*parsed}, *edits, acme());
  ASSERT_TRUE(choice.names);
  EXPECT_EQ(*choice.names, std::vector<std::string>{"acme.example/npu=1"});
}

TEST(MadeUpVendor, SlurmGresAndKubernetes) {
  const auto& inv = inventory();
  auto lines = gres_lines(inv, nullptr);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].file, "/dev/acme0");
  EXPECT_EQ(lines[0].type, "n1");
  auto res = k8s_resource_for(inv, "acme", acme());
  ASSERT_TRUE(res) << res.error().message;
  EXPECT_EQ(*res, "acme.example/npu");
  auto labels = node_labels(inv, "anygpu.io", acme());
  auto text = features_file(labels);
  EXPECT_NE(text.find("acme"), std::string::npos) << text;
  JobRequest job;
  job.image = "localhost/exp:1";
  job.argv = {"python", "train.py"};
  job.vendor = "acme";
  job.resource = *res;
  job.label_prefix = "anygpu.io";
  auto manifest = job_manifest(job);
  ASSERT_TRUE(manifest) << manifest.error().message;
  EXPECT_NE(manifest->find("acme.example/npu: 1"), std::string::npos) << *manifest;
}

TEST(MadeUpVendor, MetricsFromGenericHwmon) {
  auto h = host();
  auto backends = make_backends(h, inventory(), acme());
  ASSERT_EQ(backends.size(), 1u);
  auto snap = sample_once(backends, {});
  ASSERT_EQ(snap.devices.size(), 2u);
  EXPECT_EQ(snap.devices[1].vendor, "acme");
  EXPECT_EQ(snap.devices[1].temperature_celsius, 42.0);
  ASSERT_TRUE(snap.devices[1].power_watts);
  EXPECT_NEAR(*snap.devices[1].power_watts, 75.0, 0.01);
}

}  // namespace anygpu
