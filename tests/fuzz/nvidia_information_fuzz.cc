// /proc/driver/nvidia/gpus/<bus>/information.
#include "fuzz_check.h"
#include "probe/sysfs_parse.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto info = parse_nvidia_information(fuzz::as_text(data, size));
  if (!info) {
    FUZZ_CHECK(!info.error().message.empty());
    return 0;
  }
  // Something was found, and every value is a clean, non-empty single line.
  FUZZ_CHECK(info->model || info->uuid || info->minor || info->bus_location);
  if (info->model) FUZZ_CHECK(fuzz::clean_value(*info->model));
  if (info->uuid) FUZZ_CHECK(fuzz::clean_value(*info->uuid));
  if (info->bus_location) FUZZ_CHECK(fuzz::clean_value(*info->bus_location));
  if (info->minor) FUZZ_CHECK(*info->minor >= 0 && *info->minor <= 255);
  return 0;
}
