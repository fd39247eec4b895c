// A file name read back with a registry pattern's shape: the input is split at NULs into the
// name, the stem and the literals around the version. Never crashes; an accepted version is a
// dotted number that, put back between stem and literals, gives the name again.
#include <algorithm>
#include <string>
#include <vector>

#include "container/driver_version.h"
#include "fuzz_check.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = split(fuzz::as_text(data, size), '\0');
  while (parts.size() < 4) parts.emplace_back();
  std::string name(parts[0]), stem(parts[1]);
  DriverVersionShape shape{std::string(parts[2]), std::string(parts[3])};
  auto version = driver_version_in(name, stem, shape);
  if (!version) return 0;
  FUZZ_CHECK(is_numeric_dotted_version(*version));
  FUZZ_CHECK(stem + shape.before + *version + shape.after == name);
  FUZZ_CHECK(library_stem(stem + ".so") == stem.substr(0, stem.find(".so")));
  return 0;
}
