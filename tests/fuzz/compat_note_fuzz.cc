// The cuda-compat note reader over any bytes as an ELF file: it ends without reading outside
// the input, a note it returns has a dotted CUDA version and bounded lists, a refusal has a
// message, and a read is deterministic.
#include "fuzz_check.h"
#include "image/compat_note.h"
#include "util/version.h"

using namespace anygpu;
using namespace anygpu::image;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fuzz::as_text(data, size);
  auto n = read_compat_note(bytes);
  auto again = read_compat_note(bytes);
  FUZZ_CHECK(n.ok() == again.ok());
  if (!n) {
    FUZZ_CHECK(!n.error().message.empty() && n.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(n.error().message == again.error().message);
    return 0;
  }
  FUZZ_CHECK(n->has_value() == again->has_value());
  if (!*n) return 0;
  const auto& note = **n;
  FUZZ_CHECK(is_dotted_version(note.cuda_version));
  FUZZ_CHECK(note.drivers.size() <= 1024 && note.devices.size() <= 1024);
  for (int d : note.drivers) FUZZ_CHECK(d >= 0);
  FUZZ_CHECK(note.drivers == (*again)->drivers && note.cuda_version == (*again)->cuda_version);
  return 0;
}
