#include "image/compat_note.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/strings.h"
#include "util/version.h"

namespace anygpu::image {

namespace {

constexpr uint32_t kShtNote = 7;
constexpr uint16_t kShnXindex = 0xffff;
constexpr std::string_view kSection = ".note.cuda.fwd_compatibility";
constexpr std::string_view kOwner = "NVIDIA Corporation";
// Bounds on what a note may list: real ones name a handful of branches and device classes.
constexpr size_t kMaxListed = 1024;

std::string_view basename_of(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

// Fixed-width fields of the file in its own byte order, bounds-checked.
class Fields {
 public:
  Fields(std::string_view bytes, bool big) : b_(bytes), big_(big) {}
  bool has(uint64_t at, uint64_t n) const { return at <= b_.size() && n <= b_.size() - at; }
  uint64_t get(uint64_t at, int width) const {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      uint64_t byte = static_cast<uint8_t>(b_[at + (big_ ? i : width - 1 - i)]);
      v = (v << 8) | byte;
    }
    return v;
  }

 private:
  std::string_view b_;
  bool big_;
};

struct Section {
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0, align = 0;
};

struct Layout {
  bool wide = true;  // ELF64
  uint64_t shoff = 0;
  uint64_t shentsize = 0, shnum = 0, shstrndx = 0;
};

Section section_at(const Fields& f, const Layout& l, uint64_t i) {
  uint64_t at = l.shoff + i * l.shentsize;
  Section s;
  s.name = static_cast<uint32_t>(f.get(at, 4));
  s.type = static_cast<uint32_t>(f.get(at + 4, 4));
  if (l.wide) {
    s.offset = f.get(at + 24, 8);
    s.size = f.get(at + 32, 8);
    s.link = static_cast<uint32_t>(f.get(at + 40, 4));
    s.align = f.get(at + 48, 8);
  } else {
    s.offset = f.get(at + 16, 4);
    s.size = f.get(at + 20, 4);
    s.link = static_cast<uint32_t>(f.get(at + 24, 4));
    s.align = f.get(at + 32, 4);
  }
  return s;
}

uint64_t align_up(uint64_t n, uint64_t to) {
  return (n + to - 1) / to * to;
}

std::string_view trim_nul(std::string_view s) {
  while (!s.empty() && s.back() == '\0') s.remove_suffix(1);
  while (!s.empty() && s.front() == '\0') s.remove_prefix(1);
  return s;
}

Result<std::vector<int>> int_list(const nlohmann::json& j, const char* key) {
  std::vector<int> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array() || it->size() > kMaxListed)
    return bad_input(cat({"note field \"", key, "\" is not a list of at most ",
                          std::to_string(kMaxListed), " numbers"}));
  for (const auto& v : *it) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000000)
      return bad_input(cat({"note field \"", key, "\" holds ", v.dump(), ", not a number"}));
    out.push_back(static_cast<int>(v.get<int64_t>()));
  }
  return out;
}

Result<CompatNote> parse_description(std::string_view desc) {
  auto j = nlohmann::json::parse(desc, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad_input("note description is not a JSON object");
  CompatNote n;
  auto fmt = j.find("Format");
  if (fmt != j.end()) {
    if (!fmt->is_number_integer()) return bad_input("note field \"Format\" is not a number");
    n.format = static_cast<int>(fmt->get<int64_t>());
  }
  auto cuda = j.find("CUDA Version");
  if (cuda == j.end() || !cuda->is_string() || !is_dotted_version(cuda->get<std::string>()))
    return bad_input("note field \"CUDA Version\" is missing or not a version");
  n.cuda_version = cuda->get<std::string>();
  auto drivers = int_list(j, "Driver");
  if (!drivers) return drivers.error();
  n.drivers = std::move(*drivers);
  auto devices = int_list(j, "Device");
  if (!devices) return devices.error();
  n.devices = std::move(*devices);
  return n;
}

// The notes of one SHT_NOTE section: NVIDIA's, or nullopt.
Result<std::optional<CompatNote>> parse_notes(const Fields& f, const Section& s,
                                              std::string_view bytes) {
  uint64_t align = s.align == 8 ? 8 : 4;
  uint64_t at = s.offset, end = s.offset + s.size;
  while (end - at >= 12) {
    uint64_t namesz = f.get(at, 4), descsz = f.get(at + 4, 4);
    uint64_t name_at = at + 12;
    uint64_t desc_at = name_at + align_up(namesz, align);
    if (desc_at > end || descsz > end - desc_at)
      return bad_input(cat({std::string(kSection), ": note at offset ", std::to_string(at),
                            " runs past the section (name ", std::to_string(namesz),
                            " bytes, description ", std::to_string(descsz), " bytes)"}));
    auto name = trim_nul(bytes.substr(name_at, namesz));
    if (name == kOwner && descsz > 0) {
      auto note = parse_description(trim_nul(bytes.substr(desc_at, descsz)));
      if (!note) return bad_input(cat({std::string(kSection), ": ", note.error().message}));
      return std::optional<CompatNote>(std::move(*note));
    }
    at = desc_at + align_up(descsz, align);
  }
  return std::optional<CompatNote>();
}

}  // namespace

bool is_compat_library(std::string_view path) {
  auto base = basename_of(path);
  if (base.rfind("libcuda.so.", 0) != 0 || base.size() == 11) return false;
  auto dir = path.substr(0, path.size() - base.size());
  if (dir.empty()) return false;
  auto parent = basename_of(dir.substr(0, dir.size() - 1));
  return parent == "compat" || parent == "cuda-compat";
}

std::optional<std::string> compat_driver_version(std::string_view path) {
  auto v = basename_of(path).substr(11);
  if (!is_dotted_version(v) || v.find('.') == std::string_view::npos) return std::nullopt;
  return std::string(v);
}

Result<std::optional<CompatNote>> read_compat_note(std::string_view elf) {
  if (elf.size() < 16 || elf.substr(0, 4) !=
                             "\x7f"
                             "ELF")
    return bad_input("not an ELF file");
  auto cls = static_cast<uint8_t>(elf[4]), data = static_cast<uint8_t>(elf[5]);
  if ((cls != 1 && cls != 2) || (data != 1 && data != 2))
    return bad_input(cat({"ELF class ", std::to_string(cls), " / data encoding ",
                          std::to_string(data), " is neither 32/64-bit nor LSB/MSB"}));
  Fields f(elf, data == 2);
  Layout l;
  l.wide = cls == 2;
  uint64_t header = l.wide ? 64 : 52;
  if (!f.has(0, header)) return bad_input("ELF header cut short");
  l.shoff = l.wide ? f.get(0x28, 8) : f.get(0x20, 4);
  l.shentsize = f.get(l.wide ? 0x3A : 0x2E, 2);
  l.shnum = f.get(l.wide ? 0x3C : 0x30, 2);
  l.shstrndx = f.get(l.wide ? 0x3E : 0x32, 2);
  if (l.shoff == 0) return std::optional<CompatNote>();  // no section headers: no note
  if (l.shentsize != (l.wide ? 64u : 40u))
    return bad_input(
        cat({"section header size ", std::to_string(l.shentsize), ", not ", l.wide ? "64" : "40"}));
  if (!f.has(l.shoff, l.shentsize)) return bad_input("section headers lie outside the file");
  // Extended numbering: the real count and string table index sit in section 0.
  auto first = section_at(f, l, 0);
  if (l.shnum == 0) l.shnum = first.size;
  if (l.shstrndx == kShnXindex) l.shstrndx = first.link;
  if (l.shnum > (elf.size() - l.shoff) / l.shentsize)
    return bad_input(cat({std::to_string(l.shnum), " section headers at offset ",
                          std::to_string(l.shoff), " run past the end of the file"}));
  if (l.shstrndx >= l.shnum)
    return bad_input(cat({"section name table index ", std::to_string(l.shstrndx),
                          " is not below the section count ", std::to_string(l.shnum)}));
  auto names = section_at(f, l, l.shstrndx);
  if (!f.has(names.offset, names.size))
    return bad_input("the section name table lies outside the file");
  auto table = elf.substr(names.offset, names.size);
  for (uint64_t i = 1; i < l.shnum; ++i) {
    auto s = section_at(f, l, i);
    if (s.type != kShtNote || s.name >= table.size()) continue;
    auto name = table.substr(s.name);
    name = name.substr(0, name.find('\0'));
    if (name != kSection) continue;
    if (!f.has(s.offset, s.size))
      return bad_input(cat({std::string(kSection), " (offset ", std::to_string(s.offset), ", ",
                            std::to_string(s.size), " bytes) lies outside the file"}));
    return parse_notes(f, s, elf);
  }
  return std::optional<CompatNote>();
}

}  // namespace anygpu::image
