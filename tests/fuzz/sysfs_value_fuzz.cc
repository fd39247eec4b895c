// sysfs/hwmon metric values: parsing never crashes; an accepted value lies in the range asked
// for and reads back the same from its decimal form; a rejection is a bad_input error.
#include <string>

#include "fuzz_check.h"
#include "probe/sysfs_value.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  const std::pair<int64_t, int64_t> ranges[] = {
      {0, metrics::kMaxPercent},     {metrics::kMinMilliCelsius, metrics::kMaxMilliCelsius},
      {0, metrics::kMaxMicroWatts},  {0, metrics::kMaxBytes},
      {0, metrics::kMaxMicroJoules}, {INT64_MIN, INT64_MAX}};
  for (auto [lo, hi] : ranges) {
    auto v = metrics::parse_sysfs_integer(text, lo, hi);
    if (!v) {
      FUZZ_CHECK(v.error().kind == ErrorKind::bad_input);
      FUZZ_CHECK(!v.error().message.empty());
      continue;
    }
    FUZZ_CHECK(*v >= lo && *v <= hi);
    auto again = metrics::parse_sysfs_integer(std::to_string(*v), lo, hi);
    FUZZ_CHECK(again.ok() && *again == *v);
  }
  return 0;
}
