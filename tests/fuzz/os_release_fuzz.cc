// /etc/os-release: PRETTY_NAME, else NAME [VERSION].
#include "fuzz_check.h"
#include "probe/sysfs_parse.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto os = parse_os_release(text);
  if (!os) {
    FUZZ_CHECK(!os.error().message.empty());
    FUZZ_CHECK(!key_value(text, "PRETTY_NAME") && !key_value(text, "NAME"));
    return 0;
  }
  FUZZ_CHECK(!os->empty());
  FUZZ_CHECK(os->find('\n') == std::string::npos);
  FUZZ_CHECK(os->size() <= size);
  // Parsing is a pure function of the text.
  auto again = parse_os_release(text);
  FUZZ_CHECK(again.ok() && *again == *os);
  return 0;
}
