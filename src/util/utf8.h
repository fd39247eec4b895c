// Text formats that demand UTF-8 (Prometheus label values, JSON) receive host strings that may
// not be: a pci.ids name in Latin-1, a truncated sysfs attribute, a process name cut mid-character.
#pragma once

#include <string>
#include <string_view>

namespace anygpu {

// `s` with every ill-formed sequence replaced by U+FFFD, one per maximal ill-formed subpart as
// the Unicode Standard (ch. 3, "U+FFFD Substitution of Maximal Subparts") and Go's
// strings.ToValidUTF8 do: overlong forms, surrogates and values past U+10FFFF are ill-formed.
std::string valid_utf8(std::string_view s);

}  // namespace anygpu
