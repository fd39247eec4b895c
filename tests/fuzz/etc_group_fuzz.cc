// parse_group_ids: any bytes give either ids in 0..INT32_MAX for wanted names only, or an error
// naming the file and line.
#include <string>

#include "fuzz_check.h"
#include "host/etc_group.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 20) return 0;  // read_file's cap
  auto ids = parse_group_ids(fuzz::as_text(data, size), "/etc/group", {"video", "render"});
  if (!ids) {
    FUZZ_CHECK(ids.error().message.starts_with("/etc/group:"));
    return 0;
  }
  FUZZ_CHECK(ids->size() <= 2);
  for (const auto& [name, gid] : *ids) {
    FUZZ_CHECK(name == "video" || name == "render");
    FUZZ_CHECK(gid >= 0);
  }
  return 0;
}
