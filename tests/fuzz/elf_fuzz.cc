// The ELF reader: any bytes end in a parsed object or a bad_input error naming the file; strings
// taken from the dynamic string table are NUL-free and bounded; a parse is deterministic.
#include "doctor/elf.h"
#include "fuzz_check.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fuzz::as_text(data, size);
  auto r = parse_elf_bytes(bytes, "fuzz.so");
  if (!r) {
    FUZZ_CHECK(r.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(r.error().message.rfind("fuzz.so: ", 0) == 0);
    return 0;
  }
  auto bounded = [](const std::string& s) {
    return s.size() < 4096 && s.find('\0') == std::string::npos;
  };
  for (const auto& n : r->needed) FUZZ_CHECK(bounded(n));
  if (r->soname) FUZZ_CHECK(bounded(*r->soname));
  if (r->rpath) FUZZ_CHECK(bounded(*r->rpath));
  if (r->runpath) FUZZ_CHECK(bounded(*r->runpath));
  FUZZ_CHECK(r->needed.empty() || r->has_dynamic);
  FUZZ_CHECK(r->build_id.size() % 2 == 0);
  auto again = parse_elf_bytes(bytes, "fuzz.so");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->needed == r->needed && again->soname == r->soname &&
             again->runpath == r->runpath && again->rpath == r->rpath);
  return 0;
}
