// PEP 440: versions and specifier sets. Parsing never crashes; a parsed version's normal form
// parses to an equal version; comparison is antisymmetric.
#include "fuzz_check.h"
#include "util/pep440.h"
#include "util/strings.h"

using namespace anygpu;
using namespace anygpu::pep440;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  // First line: a version; the rest: a specifier set.
  auto nl = text.find('\n');
  auto vtext = text.substr(0, nl);
  auto stext = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  auto v = Version::parse(vtext);
  if (v) {
    auto again = Version::parse(v->str());
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(compare(*v, *again) == 0);
    FUZZ_CHECK(again->str() == v->str());
    FUZZ_CHECK(compare(v->public_version(), v->base_version()) != 0 || !v->is_prerelease());
  }
  auto set = SpecifierSet::parse(stext);
  if (!set) {
    FUZZ_CHECK(set.error().kind == ErrorKind::bad_input);
    return 0;
  }
  auto reparsed = SpecifierSet::parse(set->str());
  FUZZ_CHECK(reparsed.ok());
  FUZZ_CHECK(reparsed->str() == set->str());
  if (v) {
    FUZZ_CHECK(set->contains(*v) == reparsed->contains(*v));
    for (const auto& s : set->specifiers())
      if (s.parsed) {
        int a = compare(*v, *s.parsed), b = compare(*s.parsed, *v);
        FUZZ_CHECK(a == -b);
      }
  }
  return 0;
}
