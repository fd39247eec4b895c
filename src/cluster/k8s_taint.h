// `anygpu k8s taint`: the Node patch that puts anygpu.io/unhealthy=<code>:NoSchedule on a node
// whose devices fail, or takes it off a node that is healthy again, leaving every other taint.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "health/verdict.h"
#include "util/result.h"

namespace anygpu {

inline constexpr std::string_view kUnhealthyTaintKey = "anygpu.io/unhealthy";
inline constexpr std::string_view kUnhealthyTaintEffect = "NoSchedule";

// What the patch needs of the Node object (`kubectl get node NAME -o json`).
struct NodeTaints {
  std::string name;              // metadata.name
  std::string resource_version;  // metadata.resourceVersion; empty when the document has none
  nlohmann::ordered_json taints = nlohmann::ordered_json::array();  // spec.taints, as read
};

// A v1 Node document. Invalid JSON: bad_input "FILE:LINE:COL: …"; a wrong shape (another kind,
// taints not a list of objects with string key and effect): bad_input naming FILE and the field.
Result<NodeTaints> parse_node_taints(std::string_view text, const std::string& file);

// The taint the verdict asks for: the worst culprit's code as the value; none without a culprit.
// A code that is not a valid taint value is an internal error (codes are anygpu's own).
Result<std::optional<nlohmann::ordered_json>> unhealthy_taint(const health::NodeVerdict& verdict);

// A JSON merge patch (RFC 7386; `kubectl patch node NAME --type merge`) of the Node. Its
// spec.taints is an atomic list (x-kubernetes-list-type: atomic in the API's OpenAPI
// document): any patch replaces it whole, strategic ones included. So the patch carries every
// other taint as read, with ours (key and effect above) added, changed or removed, and the
// resourceVersion read, so that the API server refuses it (409 Conflict) if the node changed
// in between rather than drop a taint set since. `{}` when nothing changes.
nlohmann::ordered_json taint_patch(const NodeTaints& node,
                                   const std::optional<nlohmann::ordered_json>& wanted);

// The patch for the verdict: ours set when a device fails; removed only when no device is
// blind either (a node whose devices cannot be read is not healthy: its taint stays as it is).
Result<nlohmann::ordered_json> verdict_patch(const NodeTaints& node,
                                             const health::NodeVerdict& verdict);

}  // namespace anygpu
