// parse_env_value: the first byte picks a row of the table, the rest is the value. A verdict
// is always given; a refusal is `NAME="…": …` with no raw control character; an accepted
// integer lies in its row's range, an accepted boolean carries its flag.
#include <string>

#include "fuzz_check.h"
#include "util/env_vars.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An environment entry is at most ARG_MAX-ish; a few KiB exercise every branch.
  if (size == 0 || size > 8 * 1024) return 0;
  auto rows = env_variables();
  const EnvVariable& row = rows[data[0] % rows.size()];
  std::string value(fuzz::as_text(data + 1, size - 1));
  if (value.find('\0') != std::string::npos) return 0;  // no environment holds a NUL
  auto v = parse_env_value(row, value);
  if (!v) {
    const std::string& msg = v.error().message;
    FUZZ_CHECK(msg.rfind(cat({row.name, "=\""}), 0) == 0);
    FUZZ_CHECK(!has_control_char(msg));
    return 0;
  }
  if (!*v) {
    FUZZ_CHECK(value.empty() && row.empty_is_unset);
    return 0;
  }
  if (row.kind == EnvKind::integer) {
    FUZZ_CHECK((*v)->number.has_value());
    FUZZ_CHECK(*(*v)->number >= row.min && *(*v)->number <= row.max);
  }
  if (row.kind == EnvKind::boolean) FUZZ_CHECK((*v)->flag.has_value());
  if (row.kind == EnvKind::name || row.kind == EnvKind::keyword)
    FUZZ_CHECK(!has_control_char(value));
  return 0;
}
