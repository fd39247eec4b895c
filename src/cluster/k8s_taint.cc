#include "cluster/k8s_taint.h"

#include "cluster/k8s_names.h"
#include "util/json_parse.h"
#include "util/strings.h"

namespace anygpu {

namespace {

using json = nlohmann::ordered_json;

bool is_ours(const json& taint) {
  return taint.value("key", "") == kUnhealthyTaintKey &&
         taint.value("effect", "") == kUnhealthyTaintEffect;
}

// Why `taints` is not a list of taints (empty when it is).
std::string taints_problem(const json& taints) {
  if (!taints.is_array()) return "spec.taints is not a list";
  for (size_t i = 0; i < taints.size(); ++i) {
    const auto& t = taints[i];
    auto at = cat({"spec.taints[", std::to_string(i), "]"});
    if (!t.is_object()) return at + " is not an object";
    for (const char* field : {"key", "effect"})
      if (!t.contains(field) || !t[field].is_string())
        return cat({at, ".", field, " is missing or not a string"});
    if (t.contains("value") && !t["value"].is_string()) return at + ".value is not a string";
  }
  return {};
}

}  // namespace

Result<NodeTaints> parse_node_taints(std::string_view text, const std::string& file) {
  auto doc = parse_json_text(text, file);
  if (!doc) return doc.error();
  auto refuse = [&](std::string_view why) { return bad_input(cat({file, ": ", why})); };
  if (!doc->is_object() || doc->value("kind", json()) != "Node" ||
      doc->value("apiVersion", json()) != "v1")
    return refuse("not a v1 Node (kubectl get node NAME -o json)");
  NodeTaints node;
  auto meta = doc->value("metadata", json::object());
  if (!meta.is_object()) return refuse("metadata is not an object");
  for (auto [field, into] :
       {std::pair{"name", &node.name}, std::pair{"resourceVersion", &node.resource_version}}) {
    auto v = meta.value(field, json(""));
    if (!v.is_string()) return refuse(cat({"metadata.", field, " is not a string"}));
    *into = v.get<std::string>();
  }
  auto spec = doc->value("spec", json::object());
  if (!spec.is_object()) return refuse("spec is not an object");
  node.taints = spec.value("taints", json::array());
  if (node.taints.is_null()) node.taints = json::array();
  if (auto why = taints_problem(node.taints); !why.empty()) return refuse(why);
  return node;
}

Result<std::optional<json>> unhealthy_taint(const health::NodeVerdict& verdict) {
  if (verdict.culprits.empty()) return std::optional<json>();
  const auto& code = verdict.culprits.front().code;
  if (!k8s_names::is_label_key(kUnhealthyTaintKey) || !k8s_names::is_label_value(code))
    return internal_error(
        cat({"finding code \"", escape_control(code), "\" is not a valid Kubernetes taint value"}));
  return std::optional<json>(json{{"key", std::string(kUnhealthyTaintKey)},
                                  {"value", code},
                                  {"effect", std::string(kUnhealthyTaintEffect)}});
}

json taint_patch(const NodeTaints& node, const std::optional<json>& wanted) {
  json taints = json::array();
  bool changed = false, placed = false;
  for (const auto& t : node.taints) {
    if (!is_ours(t)) {
      taints.push_back(t);
      continue;
    }
    if (wanted && !placed) {
      changed = changed || t.value("value", "") != (*wanted)["value"];
      taints.push_back(*wanted);  // in its place: the list reads as it did
      placed = true;
    } else {
      changed = true;  // healthy again, or a duplicate
    }
  }
  if (wanted && !placed) {
    taints.push_back(*wanted);
    changed = true;
  }
  if (!changed) return json::object();
  json patch = json::object();
  if (!node.resource_version.empty())
    patch["metadata"] = {{"resourceVersion", node.resource_version}};
  patch["spec"] = {{"taints", taints}};
  return patch;
}

Result<json> verdict_patch(const NodeTaints& node, const health::NodeVerdict& verdict) {
  if (!verdict.out_of_service() && !verdict.blind.empty()) return json::object();
  auto wanted = unhealthy_taint(verdict);
  if (!wanted) return wanted.error();
  return taint_patch(node, *wanted);
}

}  // namespace anygpu
