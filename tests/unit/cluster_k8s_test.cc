// Kubernetes: NFD labels and Job / PyTorchJob manifests, parsed back with yaml-cpp.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "cluster/k8s.h"
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

void check_pod(const YAML::Node& spec, const JobRequest& r, const std::string& container) {
  EXPECT_EQ(spec["restartPolicy"].as<std::string>(), "Never");
  EXPECT_EQ(spec["nodeSelector"][r.label_prefix + "/vendor"].as<std::string>(), r.vendor);
  EXPECT_TRUE(spec["securityContext"]["runAsNonRoot"].as<bool>());
  EXPECT_EQ(spec["securityContext"]["runAsUser"].as<int>(), 1001);
  EXPECT_EQ(spec["securityContext"]["seccompProfile"]["type"].as<std::string>(), "RuntimeDefault");
  ASSERT_EQ(spec["containers"].size(), 1u);
  auto c = spec["containers"][0];
  EXPECT_EQ(c["name"].as<std::string>(), container);
  EXPECT_EQ(c["image"].as<std::string>(), r.image);
  EXPECT_EQ(c["args"].as<std::vector<std::string>>(), r.argv);  // byte for byte
  EXPECT_FALSE(c["command"]);                                   // the image's ENTRYPOINT stays
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
  check_pod(pod_spec_of(doc["spec"]["template"]), r, "main");
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
  for (const char* role : {"Master", "Worker"})
    check_pod(pod_spec_of(specs[role]["template"]), r, "pytorch");
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
  bad([](JobRequest& r) { r.name = std::string(64, 'a'); }, "DNS label");
  bad([](JobRequest& r) { r.image = "has space"; }, "--image");
  bad([](JobRequest& r) { r.image = ""; }, "--image");
  bad([](JobRequest& r) { r.argv = {"\xff\xfe"}; }, "not UTF-8");
  bad([](JobRequest& r) { r.gpus = 0; }, "--gpus");
}

TEST(K8sResource, FromTheRegistryWithTheDriverFilledIn) {
  EXPECT_EQ(*k8s_resource_for(test::fixture_inventory("h100-8x"), "nvidia"), "nvidia.com/gpu");
  EXPECT_EQ(*k8s_resource_for(test::fixture_inventory("ascend-910b-8x"), "ascend"),
            "huawei.com/Ascend910");
  // Intel's plugin names the resource by kernel driver; the first Intel device here is xe.
  EXPECT_EQ(*k8s_resource_for(test::fixture_inventory("intel-max-arc"), "intel"),
            "gpu.intel.com/xe");
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

}  // namespace anygpu
