// Kubernetes: NFD labels and Job / PyTorchJob manifests, parsed back with yaml-cpp.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "cluster/k8s.h"
#include "cluster/k8s_names.h"
#include "registry/registry.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {

JobRequest request() {
  JobRequest r;
  r.name = "train";
  r.image = "registry.example/ml/train@sha256:0123";
  r.gpus = 8;
  r.vendor = "nvidia";
  r.resource = "nvidia.com/gpu";
  r.label_prefix = std::string(kDefaultLabelPrefix);
  r.argv = {"python",      "train.py",    "--lr=1e-3", "a b",   "$HOME", "'q'",  "\"dq\"",
            "back\\slash", "line\nbreak", ": colon",   "#hash", "-",     "true", "123",
            "null",        "~",           "*star",     "&a",    "!tag",  "",     "[a,b]",
            "{x: y}",      "ünïcödé"};
  return r;
}

YAML::Node pod_spec_of(const YAML::Node& template_node) {
  return template_node["spec"];
}

void check_pod(const YAML::Node& spec, const JobRequest& r, const std::string& container,
               const std::vector<std::string>& args) {
  EXPECT_EQ(spec["restartPolicy"].as<std::string>(), "Never");
  EXPECT_EQ(spec["nodeSelector"][r.label_prefix + "/vendor"].as<std::string>(), r.vendor);
  EXPECT_TRUE(spec["securityContext"]["runAsNonRoot"].as<bool>());
  EXPECT_EQ(spec["securityContext"]["runAsUser"].as<int>(), 1001);
  EXPECT_EQ(spec["securityContext"]["seccompProfile"]["type"].as<std::string>(), "RuntimeDefault");
  ASSERT_EQ(spec["containers"].size(), 1u);
  auto c = spec["containers"][0];
  EXPECT_EQ(c["name"].as<std::string>(), container);
  EXPECT_EQ(c["image"].as<std::string>(), r.image);
  EXPECT_EQ(c["args"].as<std::vector<std::string>>(), args);  // byte for byte
  EXPECT_FALSE(c["command"]);                                 // the image's ENTRYPOINT stays
  EXPECT_EQ(c["resources"]["limits"][r.resource].as<int>(), r.gpus);
  auto sc = c["securityContext"];
  EXPECT_FALSE(sc["allowPrivilegeEscalation"].as<bool>());
  EXPECT_TRUE(sc["runAsNonRoot"].as<bool>());
  EXPECT_EQ(sc["runAsUser"].as<int>(), 1001);
  EXPECT_EQ(sc["capabilities"]["drop"].as<std::vector<std::string>>(),
            std::vector<std::string>{"ALL"});
  EXPECT_EQ(sc["seccompProfile"]["type"].as<std::string>(), "RuntimeDefault");
  EXPECT_FALSE(sc["privileged"]);
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), "/dev/shm");
  EXPECT_EQ(spec["volumes"][0]["name"].as<std::string>(),
            c["volumeMounts"][0]["name"].as<std::string>());
  EXPECT_EQ(spec["volumes"][0]["emptyDir"]["medium"].as<std::string>(), "Memory");
}

}  // namespace

TEST(K8sJob, SingleNodeJob) {
  auto r = request();
  auto m = job_manifest(r);
  ASSERT_TRUE(m) << m.error().message;
  auto doc = YAML::Load(*m);
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "batch/v1");
  EXPECT_EQ(doc["kind"].as<std::string>(), "Job");
  EXPECT_EQ(doc["metadata"]["name"].as<std::string>(), "train");
  EXPECT_EQ(doc["spec"]["backoffLimit"].as<int>(), 0);
  check_pod(pod_spec_of(doc["spec"]["template"]), r, "main", r.argv);
}

TEST(K8sJob, MultiNodePyTorchJob) {
  auto r = request();
  r.nnodes = 4;
  r.vendor = "amd";
  r.resource = "amd.com/gpu";
  auto m = job_manifest(r);
  ASSERT_TRUE(m) << m.error().message;
  auto doc = YAML::Load(*m);
  EXPECT_EQ(doc["apiVersion"].as<std::string>(), "kubeflow.org/v1");
  EXPECT_EQ(doc["kind"].as<std::string>(), "PyTorchJob");
  EXPECT_EQ(doc["spec"]["nprocPerNode"].as<std::string>(), "8");
  auto specs = doc["spec"]["pytorchReplicaSpecs"];
  EXPECT_EQ(specs["Master"]["replicas"].as<int>(), 1);
  EXPECT_EQ(specs["Worker"]["replicas"].as<int>(), 3);
  // torchrun starts nprocPerNode processes per pod from the operator's PET_* variables.
  std::vector<std::string> args = {"torchrun", "--no_python"};
  args.insert(args.end(), r.argv.begin(), r.argv.end());
  for (const char* role : {"Master", "Worker"})
    check_pod(pod_spec_of(specs[role]["template"]), r, "pytorch", args);
}

TEST(K8sJob, BadRequestsAreNamed) {
  auto bad = [](auto edit, std::string_view fragment) {
    auto r = request();
    edit(r);
    auto m = job_manifest(r);
    ASSERT_FALSE(m) << fragment;
    EXPECT_EQ(m.error().kind, ErrorKind::bad_input);
    EXPECT_NE(m.error().message.find(fragment), std::string::npos) << m.error().message;
  };
  bad([](JobRequest& r) { r.name = "Train_1"; }, "--name \"Train_1\"");
  bad([](JobRequest& r) { r.name = std::string(64, 'a'); }, "DNS-1035 label");
  // The training operator's webhook refuses a name that starts with a digit.
  bad([](JobRequest& r) { r.name = "1job"; }, "--name \"1job\"");
  for (const char* prefix : {"Foo_Bar", "a..b", "-x.example", "x.example-", ""})
    bad([&](JobRequest& r) { r.label_prefix = prefix; }, "--label-prefix");
  bad([](JobRequest& r) { r.label_prefix = std::string(250, 'a') + ".com"; }, "253");
  bad(
      [](JobRequest& r) {
        r.nnodes = 2;
        r.argv.clear();
      },
      "torchrun");
  bad([](JobRequest& r) { r.image = "has space"; }, "--image");
  bad([](JobRequest& r) { r.image = ""; }, "--image");
  bad([](JobRequest& r) { r.argv = {"\xff\xfe"}; }, "not UTF-8");
  bad([](JobRequest& r) { r.gpus = 0; }, "--gpus");
  // A resource the API server would refuse in a container's limits (IsExtendedResourceName).
  for (const char* resource : {"", "gpu", "cpu", "kubernetes.io/gpu", "example.kubernetes.io/gpu",
                               "requests.nvidia.com/gpu", "nvidia.com/", "/gpu", "nvidia.com/gpu/x",
                               "Nvidia.com/gpu", "nvidia.com/-gpu", "nvidia.com/gpu-",
                               "nvidia..com/gpu", "nvidia.com/g pu", "nvidia.com/gpu\n"})
    bad([&](JobRequest& r) { r.resource = resource; }, "--resource");
  bad([](JobRequest& r) { r.resource = "x.com/" + std::string(64, 'a'); }, "--resource");
  // "requests." + name must stay a qualified name: the prefix has 244 characters at most.
  std::string prefix_244 = std::string(63, 'a') + "." + std::string(63, 'b') + "." +
                           std::string(63, 'c') + "." + std::string(49, 'd') + ".io";
  ASSERT_EQ(prefix_244.size(), 244u);
  bad([&](JobRequest& r) { r.resource = "x" + prefix_244 + "/gpu"; }, "--resource");
  auto r = request();
  r.resource = prefix_244 + "/gpu";
  EXPECT_TRUE(job_manifest(r)) << "a 244-character prefix is allowed";
  for (const char* ok : {"gpu.intel.com/i915", "huawei.com/Ascend910", "example.com/a_b.c-d"}) {
    r.resource = ok;
    EXPECT_TRUE(job_manifest(r)) << ok;
  }
}

// What the registry names as each vendor's device-plugin resource is one the API server takes,
// for every driver the vendor's devices can be bound to.
TEST(K8sResource, EveryRegistryResourceIsAnExtendedResource) {
  int checked = 0;
  for (const auto& v : Registry::builtin().vendors()) {
    if (v.k8s_resource.empty()) continue;
    std::vector<std::string> names;
    if (std::string(v.k8s_resource).find("{driver}") == std::string::npos)
      names.emplace_back(v.k8s_resource);
    else
      for (auto driver : v.drivers)
        names.push_back(replace_placeholder(v.k8s_resource, "driver", driver));
    for (const auto& name : names) {
      EXPECT_EQ(k8s_names::extended_resource_problem(name), "") << v.id << ": " << name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);
}

TEST(K8sResource, FromTheRegistryWithTheDriverFilledIn) {
  EXPECT_EQ(*k8s_resource_for(test::fixture_inventory("h100-8x"), "nvidia"), "nvidia.com/gpu");
  EXPECT_EQ(*k8s_resource_for(test::fixture_inventory("ascend-910b-8x"), "ascend"),
            "huawei.com/Ascend910");
  // Intel's plugin names the resource by kernel driver. The first Intel card here (an A770) is
  // on xe, but the job gets the two Max 1550 on i915: the resource follows them.
  EXPECT_EQ(*k8s_resource_for(test::fixture_inventory("intel-max-arc"), "intel"),
            "gpu.intel.com/i915");
  auto unknown_driver = k8s_resource_for(test::fixture_inventory("h100-8x"), "intel");
  ASSERT_FALSE(unknown_driver);
  EXPECT_NE(unknown_driver.error().message.find("--resource"), std::string::npos);
  EXPECT_FALSE(k8s_resource_for(test::fixture_inventory("h100-8x"), "nosuch"));
}

TEST(K8sLabels, NfdFeatureLines) {
  auto labels = node_labels(test::fixture_inventory("h100-8x"), "anygpu.dev");
  auto text = features_file(labels);
  for (const char* want :
       {"anygpu.dev/vendor=nvidia\n", "anygpu.dev/count=8\n", "anygpu.dev/arch=sm_90\n",
        "anygpu.dev/memory-gib=80\n", "anygpu.dev/torch-device=cuda\n", "anygpu.dev/product=h100\n",
        "anygpu.dev/nvidia.count=8\n"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  // Every line is a comment or NAME=VALUE with a valid label value.
  for (auto line : split_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    ASSERT_NE(eq, std::string_view::npos) << line;
    auto value = line.substr(eq + 1);
    EXPECT_LE(value.size(), 63u);
    EXPECT_EQ(value.find_first_not_of(
                  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."),
              std::string_view::npos)
        << line;
  }
  auto mixed =
      node_labels(test::fixture_inventory("workstation-mixed"), std::string(kDefaultLabelPrefix));
  auto mixed_text = features_file(mixed);
  EXPECT_NE(mixed_text.find("/amd.count=1\n"), std::string::npos);
  EXPECT_NE(mixed_text.find("/nvidia.count=1\n"), std::string::npos);
  EXPECT_TRUE(node_labels(test::fixture_inventory("cloud-vm-none"), "x").empty());
}

// The rules of k8s.io/apimachinery pkg/util/validation (IsDNS1035Label, IsDNS1123Subdomain)
// and pkg/api/validate/content (IsLabelKey), kubernetes/kubernetes@008b3652959c.
TEST(K8sNames, ApimachineryRules) {
  using namespace k8s_names;
  for (const char* ok : {"a", "ab", "a-b", "a1", "abc-123", "train"})
    EXPECT_TRUE(is_dns1035_label(ok)) << ok;
  for (const char* bad : {"", "1job", "-a", "a-", "A", "a_b", "a.b", "über"})
    EXPECT_FALSE(is_dns1035_label(bad)) << bad;
  EXPECT_TRUE(is_dns1035_label(std::string(63, 'a')));
  EXPECT_FALSE(is_dns1035_label(std::string(64, 'a')));
  for (const char* ok : {"a", "1.2.3", "example.com", "anygpu.feature.node.kubernetes.io", "a-b.c"})
    EXPECT_TRUE(is_dns1123_subdomain(ok)) << ok;
  for (const char* bad : {"", "Foo_Bar", "a..b", "-x.example", "x.example-", ".a", "a.", "a_b.c"})
    EXPECT_FALSE(is_dns1123_subdomain(bad)) << bad;
  std::string long_ok;
  for (int i = 0; i < 4; ++i) long_ok += std::string(i ? 62 : 63, 'a') + (i < 3 ? "." : "");
  EXPECT_EQ(long_ok.size(), 252u);
  EXPECT_TRUE(is_dns1123_subdomain(long_ok));
  EXPECT_FALSE(is_dns1123_subdomain(long_ok + "aa"));  // 254
  for (const char* ok : {"vendor", "nvidia.count", "A_b-c.D", "x"})
    EXPECT_TRUE(is_label_name(ok)) << ok;
  for (const char* bad : {"", "-a", "a-", "_a", "a/b", "a b"})
    EXPECT_FALSE(is_label_name(bad)) << bad;
  EXPECT_FALSE(is_label_name(std::string(64, 'a')));
  EXPECT_TRUE(is_label_key("anygpu.dev/nvidia.count"));
  EXPECT_FALSE(is_label_key("Foo_Bar/vendor"));
  EXPECT_FALSE(is_label_key("a/b/c"));
}

// On a host with i915 and xe cards the model labels describe the cards a job gets (the two
// Max 1550 on i915), not the A770 that sorts first.
TEST(K8sLabels, FollowTheDevicesAJobGets) {
  auto labels = node_labels(test::fixture_inventory("intel-max-arc"), "p");
  auto text = features_file(labels);
  EXPECT_NE(text.find("p/product=max_1550\n"), std::string::npos) << text;
  EXPECT_NE(text.find("p/arch=xe-hpc\n"), std::string::npos) << text;
  EXPECT_NE(text.find("p/intel.count=3\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("a770"), std::string::npos) << text;
}

// Every key `k8s labels` writes is a valid label key, for every fixture host.
TEST(K8sLabels, EveryKeyIsALabelKey) {
  for (const char* host : {"h100-8x", "mi300x-8x", "intel-max-arc", "ascend-910b-8x",
                           "workstation-mixed", "laptop-hybrid", "hygon-dcu"})
    for (const auto& [k, v] :
         node_labels(test::fixture_inventory(host), std::string(kDefaultLabelPrefix)))
      EXPECT_TRUE(k8s_names::is_label_key(k)) << host << ": " << k;
}

}  // namespace anygpu
