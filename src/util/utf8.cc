#include "util/utf8.h"

namespace anygpu {

namespace {

// Length of the well-formed sequence at `s` (1..4), or 0 with `*subpart` set to the length of
// its maximal ill-formed subpart (at least 1). Table 3-7 of the Unicode Standard.
size_t well_formed(std::string_view s, size_t* subpart) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // bounds of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    need = 1;
  } else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;  // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;  // nothing past U+10FFFF
  } else {
    *subpart = 1;
    return 0;
  }
  for (size_t i = 1; i <= need; ++i) {
    bool ok = i < s.size() && b(i) >= (i == 1 ? lo : 0x80) && b(i) <= (i == 1 ? hi : 0xbf);
    if (!ok) {
      *subpart = i;
      return 0;
    }
  }
  return need + 1;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    size_t subpart = 0;
    size_t n = well_formed(s, &subpart);
    if (n) {
      out += s.substr(0, n);
      s.remove_prefix(n);
    } else {
      out += "\xef\xbf\xbd";
      s.remove_prefix(subpart);
    }
  }
  return out;
}

}  // namespace anygpu
