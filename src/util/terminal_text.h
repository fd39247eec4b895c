// Human output's last step before the terminal. Renderers build tables from host strings (an
// os-release name, a user from /etc/passwd, a kernel log line, a CDI file name) and anygpu's own
// colours; a host string must not move the cursor, retitle the window or forge lines.
#pragma once

#include <string>
#include <string_view>

namespace anygpu {

// `text` made valid UTF-8 (valid_utf8: a lone 0x9b is CSI to an 8-bit terminal), then with every
// control character escaped as escape_control() writes it (\x1b, \x07, C1 as \xc2\x9b …),
// except line feeds, tabs and anygpu's own colour sequences (ESC [ digits;… m), which pass
// unchanged. A colour sequence from the host passes too and can only recolour.
std::string terminal_text(std::string_view text);

}  // namespace anygpu
