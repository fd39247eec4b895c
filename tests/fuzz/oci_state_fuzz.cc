// The OCI state on a hook's stdin and the bundle's config.json: the input is split at the
// first NUL into both. Never crashes; an error is bad input with a message; an accepted root
// is a plain absolute path.
#include "container/cdi_hooks.h"
#include "fuzz_check.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto nul = text.find('\0');
  std::string state(text.substr(0, nul));
  std::string config(nul == std::string::npos ? "" : text.substr(nul + 1));
  auto root =
      oci_container_root(state, [&](const std::string&) -> Result<std::string> { return config; });
  if (!root) {
    FUZZ_CHECK(root.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(!root.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!root->empty() && root->front() == '/');
  for (auto part : split(std::string_view(*root).substr(1), '/'))
    FUZZ_CHECK(part != "." && part != "..");
  return 0;
}
