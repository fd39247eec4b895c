// fdinfo: parsing never crashes; device memory is the sum of the device-local regions only.
#include "fuzz_check.h"
#include "ps/fdinfo.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto c = ps::parse_fdinfo(fuzz::as_text(data, size));
  uint64_t local = 0;
  bool any = false;
  for (const auto& [region, bytes] : c.memory_bytes)
    if (region.starts_with("vram") || region.starts_with("local")) {
      local += bytes;
      any = true;
    }
  FUZZ_CHECK(c.device_memory().has_value() == any);
  if (any) FUZZ_CHECK(*c.device_memory() == local);
  return 0;
}
