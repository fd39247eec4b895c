#include "topo/kfd_link.h"

#include "probe/sysfs_parse.h"
#include "util/strings.h"

namespace anygpu {

Result<KfdLink> parse_kfd_link(std::string_view text) {
  auto props = parse_kfd_properties(text);
  if (!props) return props.error();
  KfdLink link;
  for (auto [key, field] : {std::pair<const char*, uint64_t*>{"type", &link.type},
                            {"node_from", &link.node_from},
                            {"node_to", &link.node_to},
                            {"weight", &link.weight}}) {
    auto it = props->find(key);
    if (it == props->end()) return bad_input(cat({"no '", key, "' line"}));
    *field = it->second;
  }
  if (link.weight == 0 || link.weight > kMaxKfdLinkWeight)
    return bad_input(cat({"weight ", std::to_string(link.weight), " out of range 1..",
                          std::to_string(kMaxKfdLinkWeight)}));
  return link;
}

}  // namespace anygpu
