// The Node document `k8s taint --node` reads (kubectl get node -o json). Parsing never crashes;
// a refusal is bad input naming the file; a parsed node's patch, with our taint and without,
// keeps every other taint in order and holds ours at most once.
#include "cluster/k8s_taint.h"
#include "fuzz_check.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto node = parse_node_taints(fuzz::as_text(data, size), "node.json");
  if (!node) {
    FUZZ_CHECK(node.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(node.error().message.rfind("node.json", 0) == 0);
    return 0;
  }
  nlohmann::ordered_json ours = {
      {"key", "anygpu.io/unhealthy"}, {"value", "xid"}, {"effect", "NoSchedule"}};
  for (const auto& wanted :
       {std::optional<nlohmann::ordered_json>(ours), std::optional<nlohmann::ordered_json>()}) {
    auto patch = taint_patch(*node, wanted);
    if (patch.empty()) continue;  // nothing to change
    const auto& taints = patch["spec"]["taints"];
    size_t mine = 0, others = 0;
    for (const auto& t : taints) {
      if (t == ours) {
        ++mine;
        continue;
      }
      // The others, verbatim and in order, skipping ours.
      while (others < node->taints.size() && (node->taints[others] != t)) ++others;
      FUZZ_CHECK(others < node->taints.size());
      ++others;
    }
    FUZZ_CHECK(mine == (wanted ? 1u : 0u));
  }
  return 0;
}
