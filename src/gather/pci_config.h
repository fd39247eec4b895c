// PCI configuration space as sysfs `config` hands it out (what `health` reads for AER): the
// Device Serial Number extended capability (PCIe base spec 7.9.3, capability id 0x0003) holds a
// 64-bit serial that identifies the physical card, so `gather --redact` clears it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace anygpu::gather {

inline constexpr size_t kDsnSerialBytes = 8;

// Offsets of each DSN capability's serial bytes in `config` (empty when there is none: a dump
// of the 64- or 256-byte conventional space, as unprivileged readers get, has no extended
// capabilities). A malformed capability list (a next pointer below 0x100, past the end or not
// advancing) ends the walk; the offsets found until then are returned.
std::vector<size_t> dsn_serial_offsets(std::string_view config);

// `config` with every DSN serial zeroed; the number of serials cleared in `cleared`.
std::string clear_dsn_serials(std::string config, size_t& cleared);

}  // namespace anygpu::gather
