#include "util/terminal_text.h"

#include "util/strings.h"
#include "util/utf8.h"

namespace anygpu {

namespace {

// Length of a select-graphic-rendition sequence at `s` (ESC [ [0-9;]* m), or 0.
size_t sgr_length(std::string_view s) {
  if (s.size() < 3 || s[0] != '\x1b' || s[1] != '[') return 0;
  for (size_t i = 2; i < s.size(); ++i) {
    if (s[i] == 'm') return i + 1;
    if ((s[i] < '0' || s[i] > '9') && s[i] != ';') return 0;
  }
  return 0;
}

}  // namespace

std::string terminal_text(std::string_view raw) {
  std::string valid = valid_utf8(raw);
  std::string_view text = valid;
  std::string out;
  out.reserve(text.size());
  size_t plain = 0;  // start of the run not yet written
  auto flush = [&](size_t end) { out += escape_control(text.substr(plain, end - plain)); };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    size_t keep = c == '\n' || c == '\t' ? 1 : sgr_length(text.substr(i));
    if (keep == 0) continue;
    flush(i);
    out += text.substr(i, keep);
    i += keep - 1;
    plain = i + 1;
  }
  flush(text.size());
  return out;
}

}  // namespace anygpu
