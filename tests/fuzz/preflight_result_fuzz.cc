// parse_rank_result: any bytes give a result whose rank fits its world, whose tests have known
// statuses, distinct names and finite values, or an error naming the file.
#include <cmath>
#include <set>
#include <string>

#include "fuzz_check.h"
#include "preflight/preflight_result.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  auto r = parse_rank_result(fuzz::as_text(data, size), "rank-0.json");
  if (!r) {
    FUZZ_CHECK(r.error().message.starts_with("rank-0.json"));
    return 0;
  }
  FUZZ_CHECK(r->rank >= 0 && r->rank < r->world_size && r->local_rank < r->world_size);
  FUZZ_CHECK(!r->tests.empty() && r->tests.size() <= 32);
  std::set<std::string> names;
  for (const auto& t : r->tests) {
    FUZZ_CHECK(names.insert(t.name).second);
    FUZZ_CHECK(t.status == "pass" || t.status == "fail" || t.status == "measured" ||
               t.status == "skipped");
    if (t.value) FUZZ_CHECK(std::isfinite(*t.value));
    FUZZ_CHECK(t.status != "measured" || t.value);
  }
  return 0;
}
