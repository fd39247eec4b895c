// The one-value sysfs attributes: link speed and width, NUMA node, PCI class and ids.
#include <cmath>
#include <string>

#include "fuzz_check.h"
#include "probe/sysfs_parse.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);

  if (auto speed = parse_link_speed(text)) {
    if (*speed) FUZZ_CHECK(std::isfinite(**speed) && **speed > 0 && **speed <= 1000);
  } else {
    FUZZ_CHECK(!speed.error().message.empty());
  }

  if (auto width = parse_link_width(text)) {
    if (*width) FUZZ_CHECK(**width >= 1 && **width <= 32);
  } else {
    FUZZ_CHECK(!width.error().message.empty());
  }

  if (auto numa = parse_numa_node(text)) {
    if (*numa) FUZZ_CHECK(**numa >= 0 && **numa <= 4095);
  } else {
    FUZZ_CHECK(!numa.error().message.empty());
  }

  // Class "0x030200" and ids "0x10de": exactly the kernel's fixed-width form, so the value
  // formats back to the (lower-cased) first line.
  if (auto cls = parse_pci_class(text)) {
    FUZZ_CHECK(*cls <= 0xffffff);
    FUZZ_CHECK(hex(*cls, 6) == to_lower(first_line(text)));
  } else {
    FUZZ_CHECK(!cls.error().message.empty());
  }
  if (auto id = parse_pci_id(text)) {
    FUZZ_CHECK(hex(*id, 4) == to_lower(first_line(text)));
  } else {
    FUZZ_CHECK(!id.error().message.empty());
  }
  return 0;
}
