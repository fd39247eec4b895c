// CDI spec files (YAML, or JSON when the first byte is '{'). Parsing never crashes; an error
// names the file; an accepted spec has a valid kind, unique device names and a cdiVersion no
// older than its content needs.
#include <set>

#include "cdi/cdi.h"
#include "cdi/cdi_names.h"
#include "cdi/cdi_version.h"
#include "fuzz_check.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  std::string file = !text.empty() && text.front() == '{' ? "spec.json" : "spec.yaml";
  auto spec = parse_cdi_spec(text, file);
  if (!spec) {
    FUZZ_CHECK(spec.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(spec.error().message.rfind(file, 0) == 0);
    return 0;
  }
  FUZZ_CHECK(!kind_error(spec->kind));
  FUZZ_CHECK(!spec->devices.empty());
  FUZZ_CHECK(is_known_cdi_version(spec->cdi_version));
  FUZZ_CHECK(compare_cdi_versions(spec->cdi_version, spec->minimum_version) >= 0);
  std::set<std::string> names;
  for (const auto& d : spec->devices) {
    FUZZ_CHECK(!device_name_error(d.name));
    FUZZ_CHECK(names.insert(d.name).second);
    FUZZ_CHECK(d.device_paths.size() == d.host_paths.size());
    for (const auto& p : d.device_paths) FUZZ_CHECK(!p.empty() && p.front() == '/');
  }
  return 0;
}
