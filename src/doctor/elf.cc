#include "doctor/elf.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtNote = 4;
constexpr int64_t kDtNull = 0, kDtNeeded = 1, kDtStrtab = 5, kDtStrsz = 10, kDtSoname = 14,
                  kDtRpath = 15, kDtRunpath = 29, kDtFlags1 = 0x6ffffffb;
constexpr uint32_t kNtGnuBuildId = 3;
constexpr uint64_t kMaxPhnum = 4096;
constexpr uint64_t kMaxDynamicBytes = uint64_t{1} << 20;
constexpr uint64_t kMaxNoteBytes = uint64_t{64} << 10;
constexpr size_t kMaxString = 4096;  // PATH_MAX: longer names cannot be opened anyway
constexpr size_t kMaxNeeded = 4096;

struct Segment {
  uint32_t type = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, align = 0;
};

// Every read goes through here: range-checked against the file and the read budget.
class Reader {
 public:
  Reader(const ElfReadAt& read_at, uint64_t size, std::string_view name, bool big)
      : read_at_(read_at), size_(size), name_(name), big_(big) {}

  void set_big_endian(bool big) { big_ = big; }
  Result<std::string> bytes(uint64_t off, uint64_t n, std::string_view what) {
    if (off > size_ || n > size_ - off)
      return fail(cat({what, " at offset ", std::to_string(off), " (+", std::to_string(n),
                       ") lies outside the file (", std::to_string(size_), " bytes)"}));
    if (n > kElfReadCap - used_) return fail(cat({what, ": more than the read cap"}));
    used_ += n;
    std::string out(static_cast<size_t>(n), '\0');
    if (n > 0 && !read_at_(off, static_cast<size_t>(n), out.data()))
      return fail(cat({what, ": read failed at offset ", std::to_string(off)}));
    return out;
  }
  uint64_t get(std::string_view b, size_t at, size_t width) const {
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) {
      auto byte = static_cast<uint8_t>(b[at + (big_ ? i : width - 1 - i)]);
      v = (v << 8) | byte;
    }
    return v;
  }
  Error fail(std::string message) const {
    return bad_input(cat({name_, ": not a valid ELF object: ", message}));
  }
  uint64_t size() const { return size_; }

 private:
  const ElfReadAt& read_at_;
  uint64_t size_;
  std::string name_;
  bool big_;
  uint64_t used_ = 0;
};

// A file offset for a virtual address, through the PT_LOAD segment that maps it.
std::optional<uint64_t> vaddr_to_offset(const std::vector<Segment>& segs, uint64_t addr) {
  for (const auto& s : segs) {
    if (s.type != kPtLoad || addr < s.vaddr) continue;
    uint64_t delta = addr - s.vaddr;
    if (delta >= s.filesz) continue;
    if (s.offset > UINT64_MAX - delta) return std::nullopt;
    return s.offset + delta;
  }
  return std::nullopt;
}

Result<std::string> read_string(Reader& r, uint64_t table_off, uint64_t table_size, uint64_t index,
                                std::string_view what) {
  if (index >= table_size)
    return r.fail(
        cat({what, ": string index ", std::to_string(index), " beyond the dynamic string table (",
             std::to_string(table_size), " bytes)"}));
  uint64_t n = std::min<uint64_t>(table_size - index, kMaxString);
  n = std::min<uint64_t>(n, r.size() > table_off + index ? r.size() - table_off - index : 0);
  auto b = r.bytes(table_off + index, n, what);
  if (!b) return b.error();
  auto nul = b->find('\0');
  if (nul == std::string::npos) return r.fail(cat({what, ": unterminated string"}));
  b->resize(nul);
  return std::move(*b);
}

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

void read_build_id(Reader& r, const Segment& note, ElfInfo& info) {
  uint64_t n = std::min<uint64_t>(note.filesz, kMaxNoteBytes);
  auto b = r.bytes(note.offset, n, "PT_NOTE");
  if (!b) return;  // notes are optional detail: a bad one is not worth failing the parse
  uint64_t align = note.align == 8 ? 8 : 4;
  auto up = [&](uint64_t v) { return (v + align - 1) / align * align; };
  uint64_t at = 0;
  while (at + 12 <= b->size()) {
    uint64_t namesz = r.get(*b, at, 4), descsz = r.get(*b, at + 4, 4), type = r.get(*b, at + 8, 4);
    uint64_t name_at = at + 12, desc_at = name_at + up(namesz);
    if (namesz > b->size() || descsz > b->size() || desc_at > b->size() ||
        descsz > b->size() - desc_at)
      return;
    if (type == kNtGnuBuildId && namesz == 4 &&
        b->compare(name_at, 4, std::string("GNU\0", 4)) == 0) {
      info.build_id = to_hex(std::string_view(*b).substr(desc_at, descsz));
      return;
    }
    at = desc_at + up(descsz);
  }
}

}  // namespace

Result<ElfInfo> parse_elf(const ElfReadAt& read_at, uint64_t file_size, std::string_view name) {
  Reader r(read_at, file_size, name, false);
  if (file_size < 16) return r.fail("file too short for an ELF header");
  auto ident = r.bytes(0, 16, "e_ident");
  if (!ident) return ident.error();
  if (ident->compare(0, 4,
                     "\x7f"
                     "ELF") != 0)
    return r.fail("bad magic");
  ElfInfo info;
  auto cls = static_cast<uint8_t>((*ident)[4]), data = static_cast<uint8_t>((*ident)[5]);
  if (cls != 1 && cls != 2) return r.fail(cat({"unknown class ", std::to_string(cls)}));
  if (data != 1 && data != 2) return r.fail(cat({"unknown byte order ", std::to_string(data)}));
  info.is_64 = cls == 2;
  info.big_endian = data == 2;
  r.set_big_endian(info.big_endian);

  const uint64_t ehsize = info.is_64 ? 64 : 52;
  auto eh = r.bytes(0, ehsize, "ELF header");
  if (!eh) return eh.error();
  info.type = static_cast<uint16_t>(r.get(*eh, 16, 2));
  info.machine = static_cast<uint16_t>(r.get(*eh, 18, 2));
  uint64_t phoff = info.is_64 ? r.get(*eh, 32, 8) : r.get(*eh, 28, 4);
  uint64_t phentsize = r.get(*eh, info.is_64 ? 54 : 42, 2);
  uint64_t phnum = r.get(*eh, info.is_64 ? 56 : 44, 2);
  const uint64_t want_phent = info.is_64 ? 56 : 32;
  if (phnum == 0) return info;  // no program headers: nothing the loader would use
  if (phentsize != want_phent)
    return r.fail(cat(
        {"e_phentsize ", std::to_string(phentsize), ", expected ", std::to_string(want_phent)}));
  if (phnum > kMaxPhnum) return r.fail(cat({"e_phnum ", std::to_string(phnum), " too large"}));
  auto ph = r.bytes(phoff, phnum * phentsize, "program header table");
  if (!ph) return ph.error();

  std::vector<Segment> segs;
  for (uint64_t i = 0; i < phnum; ++i) {
    size_t at = static_cast<size_t>(i * phentsize);
    Segment s;
    s.type = static_cast<uint32_t>(r.get(*ph, at, 4));
    if (info.is_64) {
      s.offset = r.get(*ph, at + 8, 8);
      s.vaddr = r.get(*ph, at + 16, 8);
      s.filesz = r.get(*ph, at + 32, 8);
      s.align = r.get(*ph, at + 48, 8);
    } else {
      s.offset = r.get(*ph, at + 4, 4);
      s.vaddr = r.get(*ph, at + 8, 4);
      s.filesz = r.get(*ph, at + 16, 4);
      s.align = r.get(*ph, at + 28, 4);
    }
    segs.push_back(s);
  }
  for (const auto& s : segs)
    if (s.type == kPtNote && info.build_id.empty()) read_build_id(r, s, info);

  auto dyn_seg =
      std::find_if(segs.begin(), segs.end(), [](const Segment& s) { return s.type == kPtDynamic; });
  if (dyn_seg == segs.end()) return info;  // static object
  info.has_dynamic = true;
  if (dyn_seg->filesz > kMaxDynamicBytes)
    return r.fail(cat({"PT_DYNAMIC of ", std::to_string(dyn_seg->filesz), " bytes"}));
  auto dyn = r.bytes(dyn_seg->offset, dyn_seg->filesz, "PT_DYNAMIC");
  if (!dyn) return dyn.error();

  const size_t entsize = info.is_64 ? 16 : 8, half = entsize / 2;
  std::optional<uint64_t> strtab, strsz, soname, rpath, runpath;
  std::vector<uint64_t> needed;
  for (size_t at = 0; at + entsize <= dyn->size(); at += entsize) {
    uint64_t tag_raw = r.get(*dyn, at, half), val = r.get(*dyn, at + half, half);
    // d_tag is signed; sign-extend the 32-bit form so DT_FLAGS_1 and friends compare right.
    int64_t tag = info.is_64 ? static_cast<int64_t>(tag_raw)
                             : static_cast<int64_t>(static_cast<int32_t>(tag_raw));
    if (tag == kDtNull) break;
    switch (tag) {
      case kDtNeeded:
        if (needed.size() >= kMaxNeeded) return r.fail("too many DT_NEEDED entries");
        needed.push_back(val);
        break;
      case kDtStrtab:
        strtab = val;
        break;
      case kDtStrsz:
        strsz = val;
        break;
      case kDtSoname:
        soname = val;
        break;
      case kDtRpath:
        rpath = val;
        break;
      case kDtRunpath:
        runpath = val;
        break;
      case kDtFlags1:
        info.flags_1 = val;
        break;
      default:
        break;
    }
  }
  bool any_string = soname || rpath || runpath || !needed.empty();
  if (!any_string) return info;
  if (!strtab || !strsz) return r.fail("DT_STRTAB or DT_STRSZ missing");
  auto str_off = vaddr_to_offset(segs, *strtab);
  if (!str_off)
    return r.fail(cat({"DT_STRTAB address 0x", hex(*strtab, 1), " is in no PT_LOAD segment"}));
  if (*str_off > file_size || *strsz > file_size - *str_off)
    return r.fail(cat({"dynamic string table (", std::to_string(*strsz), " bytes at offset ",
                       std::to_string(*str_off), ") overruns the file"}));
  auto str = [&](uint64_t idx, std::string_view what) {
    return read_string(r, *str_off, *strsz, idx, what);
  };
  for (auto idx : needed) {
    auto s = str(idx, "DT_NEEDED");
    if (!s) return s.error();
    info.needed.push_back(std::move(*s));
  }
  if (soname) {
    auto s = str(*soname, "DT_SONAME");
    if (!s) return s.error();
    info.soname = std::move(*s);
  }
  if (rpath) {
    auto s = str(*rpath, "DT_RPATH");
    if (!s) return s.error();
    info.rpath = std::move(*s);
  }
  if (runpath) {
    auto s = str(*runpath, "DT_RUNPATH");
    if (!s) return s.error();
    info.runpath = std::move(*s);
  }
  return info;
}

Result<ElfInfo> parse_elf_bytes(std::string_view bytes, std::string_view name) {
  ElfReadAt read_at = [bytes](uint64_t off, size_t n, void* out) {
    if (off > bytes.size() || n > bytes.size() - off) return false;
    std::memcpy(out, bytes.data() + off, n);
    return true;
  };
  return parse_elf(read_at, bytes.size(), name);
}

Result<ElfInfo> read_elf_file(const std::string& path) {
  // Only a regular file is opened: a FIFO named like a library would block the open forever.
  struct stat st {};
  auto opened = open_regular_at(AT_FDCWD, path, path, "shared object", 0, &st);
  if (!opened) return opened.error();
  int fd = opened->get();
  ElfReadAt read_at = [fd](uint64_t off, size_t n, void* out) {
    size_t done = 0;
    while (done < n) {
      ssize_t got =
          ::pread(fd, static_cast<char*>(out) + done, n - done, static_cast<off_t>(off + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      done += static_cast<size_t>(got);
    }
    return true;
  };
  return parse_elf(read_at, static_cast<uint64_t>(st.st_size), path);
}

}  // namespace anygpu
