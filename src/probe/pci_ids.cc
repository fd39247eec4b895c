#include "probe/pci_ids.h"

#include "host/paths.h"
#include "util/strings.h"

namespace anygpu {

namespace {
std::string id4(uint16_t v) {
  return hex(v, 4).substr(2);
}

// Finds "\n<id>  " (a vendor line starts at column 0) from `from`.
size_t find_line(std::string_view text, std::string_view prefix, size_t from) {
  while (from < text.size()) {
    auto pos = text.find(prefix, from);
    if (pos == std::string_view::npos) return pos;
    if (pos == 0 || text[pos - 1] == '\n') return pos;
    from = pos + 1;
  }
  return std::string_view::npos;
}
}  // namespace

std::optional<std::string> find_pci_device_name(std::string_view text, uint16_t vendor,
                                                uint16_t device) {
  auto vpos = find_line(text, id4(vendor) + "  ", 0);
  if (vpos == std::string_view::npos) return std::nullopt;
  auto pos = text.find('\n', vpos);
  std::string want = cat({"\t", id4(device), "  "});
  while (pos != std::string_view::npos && pos + 1 < text.size()) {
    auto start = pos + 1;
    auto end = text.find('\n', start);
    auto line = text.substr(start, end == std::string_view::npos ? text.npos : end - start);
    // The vendor's block ends at the next line that is neither indented nor a comment.
    if (!line.empty() && line[0] != '\t' && line[0] != '#') return std::nullopt;
    if (line.rfind(want, 0) == 0) {
      auto name = trim(line.substr(want.size()));
      if (name.empty() || !is_printable_text(name)) return std::nullopt;
      return std::string(name);
    }
    pos = end;
  }
  return std::nullopt;
}

std::optional<std::string> lookup_pci_name(const HostRoot& host, uint16_t vendor, uint16_t device) {
  for (auto file : paths::kPciIdsFiles) {
    auto text = host.read_file(file, 32 << 20);
    if (!text) continue;
    return find_pci_device_name(*text, vendor, device);
  }
  return std::nullopt;
}

}  // namespace anygpu
