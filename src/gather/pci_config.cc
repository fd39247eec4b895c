#include "gather/pci_config.h"

#include <cstdint>
#include <set>

namespace anygpu::gather {

namespace {

constexpr size_t kExtendedStart = 0x100;
constexpr size_t kExtendedEnd = 0x1000;  // a function's whole PCIe configuration space
constexpr uint16_t kDsnCapabilityId = 0x0003;

uint32_t le32(std::string_view s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

}  // namespace

std::vector<size_t> dsn_serial_offsets(std::string_view config) {
  std::vector<size_t> out;
  size_t end = config.size() < kExtendedEnd ? config.size() : kExtendedEnd;
  std::set<size_t> seen;  // a list that points back at itself ends here, not in a loop
  for (size_t at = kExtendedStart; at + 4 <= end && seen.insert(at).second;) {
    uint32_t header = le32(config, at);
    // All ones: the function is gone (or in D3cold); zero: no extended capabilities at all.
    if (header == 0 || header == 0xffffffff) break;
    if ((header & 0xffff) == kDsnCapabilityId && at + 4 + kDsnSerialBytes <= end)
      out.push_back(at + 4);
    size_t next = (header >> 20) & 0xffc;
    if (next < kExtendedStart) break;  // 0 ends the list; anything else below 0x100 is bogus
    at = next;
  }
  return out;
}

std::string clear_dsn_serials(std::string config, size_t& cleared) {
  cleared = 0;
  for (size_t at : dsn_serial_offsets(config)) {
    config.replace(at, kDsnSerialBytes, kDsnSerialBytes, '\0');
    ++cleared;
  }
  return config;
}

}  // namespace anygpu::gather
