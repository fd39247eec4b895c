// One KFD topology link's properties (io_links/N/properties, p2p_links/N/properties).
#include <string>

#include "fuzz_check.h"
#include "topo/kfd_link.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto link = parse_kfd_link(fuzz::as_text(data, size));
  if (!link) {
    FUZZ_CHECK(!link.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(link->weight >= 1 && link->weight <= kMaxKfdLinkWeight);
  // What was read writes back as the kernel's "key value" lines and reads the same.
  std::string again = "type " + std::to_string(link->type) + "\nnode_from " +
                      std::to_string(link->node_from) + "\nnode_to " +
                      std::to_string(link->node_to) + "\nweight " + std::to_string(link->weight) +
                      "\n";
  auto reparsed = parse_kfd_link(again);
  FUZZ_CHECK(reparsed.ok() && reparsed->type == link->type &&
             reparsed->node_from == link->node_from && reparsed->node_to == link->node_to &&
             reparsed->weight == link->weight);
  return 0;
}
