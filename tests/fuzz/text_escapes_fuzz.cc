// valid_utf8 and terminal_text: any bytes give valid UTF-8 that a second pass leaves alone, and
// valid UTF-8 terminal text whose only controls are line feeds, tabs and SGR colour sequences.
#include <string>

#include "fuzz_check.h"
#include "util/terminal_text.h"
#include "util/utf8.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  auto text = fuzz::as_text(data, size);
  auto valid = valid_utf8(text);
  FUZZ_CHECK(valid_utf8(valid) == valid);
  FUZZ_CHECK(valid.size() <= 3 * text.size());
  auto shown = terminal_text(text);
  for (size_t i = 0; i < shown.size(); ++i) {
    auto c = static_cast<unsigned char>(shown[i]);
    if (c == 0x1b) {  // only ESC [ digits;… m
      size_t j = i + 1;
      FUZZ_CHECK(j < shown.size() && shown[j] == '[');
      while (++j < shown.size() && ((shown[j] >= '0' && shown[j] <= '9') || shown[j] == ';')) {
      }
      FUZZ_CHECK(j < shown.size() && shown[j] == 'm');
      i = j;
      continue;
    }
    FUZZ_CHECK(c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f));
    // No C1 control (U+0080..U+009F is 0xc2 0x80..0x9f in UTF-8).
    if (c == 0xc2 && i + 1 < shown.size())
      FUZZ_CHECK(static_cast<unsigned char>(shown[i + 1]) > 0x9f);
  }
  FUZZ_CHECK(valid_utf8(shown) == shown);
  return 0;
}
