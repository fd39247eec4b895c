// `health --slurm`'s scontrol command and `k8s taint`'s Node patch, from a verdict: the reason
// text is bounded and printable, the node name cannot become a hostlist, and the patch keeps
// every other taint of a list the API server replaces whole.
#include <gtest/gtest.h>

#include "cluster/k8s_taint.h"
#include "cluster/slurm_drain.h"

namespace anygpu {
namespace {

using json = nlohmann::ordered_json;

health::NodeVerdict verdict(std::vector<health::Culprit> culprits) {
  health::NodeVerdict v;
  v.culprits = std::move(culprits);
  return v;
}

TEST(SlurmDrain, ReasonNamesTheWorstAndCountsTheRest) {
  EXPECT_EQ(drain_reason(verdict({})), "");
  EXPECT_EQ(drain_reason(verdict({{"xid", "0000:2a:00.0"}})), "anygpu: xid 0000:2a:00.0");
  EXPECT_EQ(drain_reason(verdict({{"xid", "0000:2a:00.0"}, {"a", "b"}, {"c", "d"}})),
            "anygpu: xid 0000:2a:00.0 +2 more");
}

TEST(SlurmDrain, ReasonIsPrintableAndBounded) {
  auto r = drain_reason(verdict({{"x\nState=RESUME", "\"0000\x1b[2J\t"}}));
  EXPECT_EQ(r, "anygpu: x?State=RESUME ?0000?[2J?");
  auto longest = drain_reason(verdict({{std::string(500, 'c'), "b"}, {"x", "y"}}));
  EXPECT_EQ(longest.size(), kMaxDrainReason);
  for (unsigned char c : longest) EXPECT_TRUE(c >= ' ' && c <= '~');
}

TEST(SlurmDrain, ArgvIsScontrolUpdateWithOneElementPerField) {
  EXPECT_EQ(drain_argv("gpu01", "anygpu: xid 0000:2a:00.0"),
            (std::vector<std::string>{"scontrol", "update", "NodeName=gpu01", "State=DRAIN",
                                      "Reason=anygpu: xid 0000:2a:00.0"}));
}

TEST(SlurmDrain, NodeNameFromSlurmdElseTheShortHostName) {
  EXPECT_EQ(*slurm_node_name("gpu-07", "ignored.example.com"), "gpu-07");
  EXPECT_EQ(*slurm_node_name(nullptr, "gpu07.cluster.example.com"), "gpu07");
  EXPECT_EQ(*slurm_node_name("", "gpu07"), "gpu07");
  // Anything scontrol would read as several nodes, or as another field, is refused.
  for (const char* bad : {"a,b", "gpu[01-99]", "a b", "a=b", "a\nb"}) {
    auto r = slurm_node_name(bad, "h");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_NE(r.error().message.find("SLURMD_NODENAME"), std::string::npos);
  }
  auto r = slurm_node_name(nullptr, "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("set SLURMD_NODENAME"), std::string::npos);
}

NodeTaints node(const std::string& text) {
  auto n = parse_node_taints(text, "node.json");
  EXPECT_TRUE(n) << (n ? "" : n.error().message);
  return n ? *n : NodeTaints{};
}

json ours(const std::string& value) {
  return {{"key", "anygpu.io/unhealthy"}, {"value", value}, {"effect", "NoSchedule"}};
}

constexpr const char* kCordoned =
    R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu01", "resourceVersion": "77"},
        "spec": {"unschedulable": true, "taints": [
          {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
           "timeAdded": "2025-01-01T00:00:00Z"},
          {"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"}]}})";

TEST(K8sTaint, AddsOursAfterTheOthersWithTheResourceVersion) {
  auto n = node(kCordoned);
  EXPECT_EQ(n.name, "gpu01");
  auto patch = taint_patch(n, ours("xid"));
  EXPECT_EQ(patch["metadata"], json({{"resourceVersion", "77"}}));
  auto taints = patch["spec"]["taints"];
  ASSERT_EQ(taints.size(), 3u);
  EXPECT_EQ(taints[0], n.taints[0]);  // kept verbatim, timeAdded included
  EXPECT_EQ(taints[1], n.taints[1]);
  EXPECT_EQ(taints[2], ours("xid"));
  EXPECT_EQ(patch.size(), 2u);  // nothing but metadata.resourceVersion and spec.taints
  EXPECT_EQ(patch["spec"].size(), 1u);
}

TEST(K8sTaint, NothingToChangeIsAnEmptyPatch) {
  EXPECT_EQ(taint_patch(node(kCordoned), std::nullopt), json::object());
  auto n = node(kCordoned);
  n.taints.push_back(ours("xid"));
  EXPECT_EQ(taint_patch(n, ours("xid")), json::object());
}

TEST(K8sTaint, ChangesTheValueInPlaceAndRemovesWhenHealthy) {
  auto n = node(kCordoned);
  n.taints.insert(n.taints.begin(), ours("xid"));
  auto changed = taint_patch(n, ours("pcie.aer.fatal"));
  EXPECT_EQ(changed["spec"]["taints"][0], ours("pcie.aer.fatal"));
  EXPECT_EQ(changed["spec"]["taints"].size(), 3u);
  auto healthy = taint_patch(n, std::nullopt);
  EXPECT_EQ(healthy["spec"]["taints"], node(kCordoned).taints);
  // Our key with another effect is someone else's taint: kept.
  auto other = node(kCordoned);
  other.taints.push_back({{"key", "anygpu.io/unhealthy"}, {"effect", "NoExecute"}});
  EXPECT_EQ(taint_patch(other, std::nullopt), json::object());
}

TEST(K8sTaint, ADuplicateOfOursIsCollapsed) {
  auto n = node(kCordoned);
  n.taints.push_back(ours("xid"));
  n.taints.push_back(ours("xid"));
  auto patch = taint_patch(n, ours("xid"));
  EXPECT_EQ(patch["spec"]["taints"].size(), 3u);
}

TEST(K8sTaint, ANodeWithoutTaintsOrVersion) {
  auto n = node(R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {}})");
  EXPECT_TRUE(n.taints.empty());
  auto patch = taint_patch(n, ours("xid"));
  EXPECT_FALSE(patch.contains("metadata"));
  EXPECT_EQ(patch["spec"]["taints"], json::array({ours("xid")}));
}

TEST(K8sTaint, TheTaintValueIsTheWorstCode) {
  auto t = unhealthy_taint(verdict({{"pcie.aer.fatal", "0000:18:00.0"}, {"xid", "b"}}));
  ASSERT_TRUE(t && *t);
  EXPECT_EQ(**t, ours("pcie.aer.fatal"));
  auto none = unhealthy_taint(verdict({}));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto bad = unhealthy_taint(verdict({{"not a label value", "b"}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::internal);
}

TEST(K8sTaint, ABlindNodeKeepsItsTaintAndGetsNoneForBlindness) {
  auto tainted = node(kCordoned);
  tainted.taints.push_back(ours("xid"));
  health::NodeVerdict blind;
  blind.blind = {"0000:18:00.0"};
  EXPECT_EQ(*verdict_patch(tainted, blind), json::object());
  EXPECT_EQ(*verdict_patch(node(kCordoned), blind), json::object());
  // Every device read and none failing: the taint goes.
  EXPECT_EQ((*verdict_patch(tainted, verdict({})))["spec"]["taints"], node(kCordoned).taints);
  // A failing device counts even where others are blind.
  blind.culprits = {{"xid", "0000:2a:00.0"}};
  EXPECT_EQ((*verdict_patch(node(kCordoned), blind))["spec"]["taints"][2], ours("xid"));
}

TEST(K8sTaint, MalformedNodeDocumentsNameTheFileAndTheField) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (auto [text, says] : std::initializer_list<Case>{
           {"{\n  \"kind\": \"Node\",\n  x}", "node.json:3:3: invalid JSON"},
           {"", "node.json:1:1: invalid JSON"},
           {"[]", "not a v1 Node"},
           {R"({"apiVersion": "v1", "kind": "Pod"})", "not a v1 Node"},
           {R"({"apiVersion": "v1", "kind": "Node", "metadata": []})", "metadata is not an object"},
           {R"({"apiVersion": "v1", "kind": "Node", "metadata": {"resourceVersion": 7}})",
            "metadata.resourceVersion is not a string"},
           {R"({"apiVersion": "v1", "kind": "Node", "spec": {"taints": {}}})",
            "spec.taints is not a list"},
           {R"({"apiVersion": "v1", "kind": "Node", "spec": {"taints": [1]}})",
            "spec.taints[0] is not an object"},
           {R"({"apiVersion": "v1", "kind": "Node", "spec": {"taints": [{"key": "a"}]}})",
            "spec.taints[0].effect is missing"},
           {R"({"apiVersion": "v1", "kind": "Node", "spec": {"taints": [{"key": "a",
               "effect": "NoSchedule", "value": 3}]}})",
            "spec.taints[0].value is not a string"},
       }) {
    auto r = parse_node_taints(text, "node.json");
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.rfind("node.json", 0), 0u) << r.error().message;
  }
}

}  // namespace
}  // namespace anygpu
