#include "topo/pci_path.h"

#include <algorithm>
#include <cctype>

#include "host/paths.h"
#include "model/inventory.h"
#include "util/strings.h"

namespace anygpu {

namespace {
constexpr std::string_view kSysDevices = paths::kSysDevicesPrefix;

// "pci0000:17": the kernel's name for a PCI root bus (domain:bus); VMD domains are wider.
bool is_root_bus_name(std::string_view s) {
  if (s.substr(0, 3) != "pci") return false;
  auto colon = s.find(':');
  if (colon == std::string_view::npos || colon < 7 || colon > 11 || s.size() != colon + 3)
    return false;
  auto hex_digits = [](std::string_view t) {
    return std::all_of(t.begin(), t.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  };
  return hex_digits(s.substr(3, colon - 3)) && hex_digits(s.substr(colon + 1));
}
}  // namespace

Result<PciPath> parse_pci_sysfs_path(std::string_view path) {
  auto fail = [&] { return bad_input(cat({std::string(path), ": not a PCI function's path"})); };
  if (path.substr(0, kSysDevices.size()) != kSysDevices) return fail();
  auto parts = split(path.substr(kSysDevices.size()), '/');
  if (parts.size() < 2 || !is_root_bus_name(parts[0])) return fail();
  PciPath out{std::string(parts[0]), {}};
  for (size_t i = 1; i < parts.size(); ++i) {
    auto address = PciAddress::parse(parts[i]);
    if (!address || address->str() != parts[i]) return fail();
    out.chain.emplace_back(parts[i]);
  }
  return out;
}

}  // namespace anygpu
