#include "probe/sysfs_parse.h"

#include <cstdio>

#include "util/strings.h"

namespace anygpu {

namespace {
std::string quoted(std::string_view s) {
  auto t = first_line(s);
  if (t.size() > 40) return cat({"'", t.substr(0, 40), "…'"});
  return cat({"'", t, "'"});
}
}  // namespace

Result<std::optional<double>> parse_link_speed(std::string_view text) {
  auto line = first_line(text);
  if (line == "Unknown" || line == "Unknown speed") return std::optional<double>();
  auto gt = line.find("GT/s");
  auto v = gt == std::string_view::npos ? std::nullopt : parse_double(line.substr(0, gt));
  if (!v || *v <= 0 || *v > 1000) return bad_input(cat({"invalid link speed ", quoted(text)}));
  return std::optional<double>(*v);
}

Result<std::optional<int>> parse_link_width(std::string_view text) {
  auto v = parse_int(first_line(text));
  if (!v || *v < 0 || *v > 255) return bad_input(cat({"invalid link width ", quoted(text)}));
  // 0 and 255 (and the 6-bit field's 63 on some bridges) are how the kernel says "unknown".
  if (*v == 0 || *v > 32) return std::optional<int>();
  return std::optional<int>(static_cast<int>(*v));
}

Result<std::optional<int>> parse_numa_node(std::string_view text) {
  auto v = parse_int(first_line(text));
  if (!v || *v < -1 || *v > 4095) return bad_input(cat({"invalid NUMA node ", quoted(text)}));
  if (*v == -1) return std::optional<int>();
  return std::optional<int>(static_cast<int>(*v));
}

Result<uint32_t> parse_pci_class(std::string_view text) {
  auto line = first_line(text);
  auto v = line.rfind("0x", 0) == 0 && line.size() == 8 ? parse_hex(line) : std::nullopt;
  if (!v) return bad_input(cat({"invalid PCI class ", quoted(text)}));
  return static_cast<uint32_t>(*v);
}

Result<uint16_t> parse_pci_id(std::string_view text) {
  auto line = first_line(text);
  auto v = line.rfind("0x", 0) == 0 && line.size() == 6 ? parse_hex(line) : std::nullopt;
  if (!v) return bad_input(cat({"invalid PCI id ", quoted(text)}));
  return static_cast<uint16_t>(*v);
}

Result<NvidiaGpuInformation> parse_nvidia_information(std::string_view text) {
  NvidiaGpuInformation info;
  bool any = false;
  // The driver always ends the file with a newline; an unterminated last line is a cut read
  // ("GPU UUID: GPU-445d26") and is not trusted.
  auto complete =
      text.substr(0, text.rfind('\n') == std::string_view::npos ? 0 : text.rfind('\n') + 1);
  for (auto line : split_lines(complete)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto key = trim(line.substr(0, colon));
    auto value = trim(line.substr(colon + 1));
    if (value.empty() || !is_printable_text(value)) continue;
    if (key == "Model") {
      info.model = std::string(value);
    } else if (key == "GPU UUID") {
      info.uuid = std::string(value);
    } else if (key == "Device Minor") {
      auto m = parse_int(value);
      if (!m || *m < 0 || *m > 255) return bad_input(cat({"invalid Device Minor ", quoted(value)}));
      info.minor = static_cast<int>(*m);
    } else if (key == "Bus Location") {
      info.bus_location = std::string(value);
    } else {
      continue;
    }
    any = true;
  }
  if (!any) return bad_input("no Model, GPU UUID or Device Minor line");
  return info;
}

Result<std::map<std::string, uint64_t>> parse_kfd_properties(std::string_view text) {
  std::map<std::string, uint64_t> props;
  int n = 0;
  for (auto line : split_lines(text)) {
    ++n;
    auto t = trim(line);
    if (t.empty()) continue;
    auto sp = t.find(' ');
    if (sp == std::string_view::npos)
      return bad_input(cat({"line ", std::to_string(n), ": expected 'key value'"}));
    auto v = parse_uint(t.substr(sp + 1));
    if (!v)
      return bad_input(
          cat({"line ", std::to_string(n), ": invalid value for '", t.substr(0, sp), "'"}));
    props[std::string(t.substr(0, sp))] = *v;
  }
  if (props.empty()) return bad_input("no properties");
  return props;
}

Result<std::string> decode_gfx_target_version(uint64_t v) {
  if (v == 0) return bad_input("gfx_target_version 0 (a CPU node)");
  if (v > 999999) return bad_input("gfx_target_version out of range: " + std::to_string(v));
  unsigned major = static_cast<unsigned>(v / 10000 % 100),
           minor = static_cast<unsigned>(v / 100 % 100), step = static_cast<unsigned>(v % 100);
  if (major == 0 || minor > 15 || step > 15)
    return bad_input("gfx_target_version not decodable: " + std::to_string(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "gfx%u%x%x", major, minor, step);
  return std::string(buf);
}

Result<std::string> parse_os_release(std::string_view text) {
  if (auto pretty = key_value(text, "PRETTY_NAME")) return *pretty;
  auto name = key_value(text, "NAME");
  if (!name) return bad_input("neither PRETTY_NAME nor NAME");
  if (auto version = key_value(text, "VERSION")) return *name + " " + *version;
  return *name;
}

std::optional<std::string> version_from_library_file(std::string_view file_name,
                                                     std::string_view soname) {
  auto so = soname.find(".so");
  if (so == std::string_view::npos) return std::nullopt;
  auto stem = soname.substr(0, so + 3);  // "libze_loader.so"
  if (file_name.rfind(stem, 0) != 0 || file_name.size() <= stem.size() + 1 ||
      file_name[stem.size()] != '.')
    return std::nullopt;
  auto version = file_name.substr(stem.size() + 1);
  for (char c : version)
    if (!((c >= '0' && c <= '9') || c == '.')) return std::nullopt;
  if (version.empty() || version.front() == '.' || version.back() == '.') return std::nullopt;
  return std::string(version);
}

}  // namespace anygpu
