#include "host/ld_cache.h"

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr size_t kOldHeader = 16, kOldEntry = 12;  // struct cache_file / file_entry
constexpr size_t kNewHeader = 48, kNewEntry = 24;  // struct cache_file_new / file_entry_new
constexpr size_t kMaxString = 4096;
constexpr int32_t kFlagElfLibc6 = 3, kFlagTypeMask = 0xff;

uint64_t get(std::string_view b, size_t at, size_t width, bool big) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i)
    v = (v << 8) | static_cast<uint8_t>(b[at + (big ? i : width - 1 - i)]);
  return v;
}

Error broken(std::string_view name, std::string message) {
  return bad_input(cat({name, ": malformed ld.so.cache: ", message}));
}

// A NUL-terminated string at `base + off`, inside the file.
Result<std::string> string_at(std::string_view b, uint64_t base, uint64_t off,
                              std::string_view name, std::string_view what) {
  if (base > b.size() || off >= b.size() - base)
    return broken(name, cat({what, " string offset ", std::to_string(off), " outside the file"}));
  auto rest = b.substr(base + off, kMaxString);
  auto nul = rest.find('\0');
  if (nul == std::string_view::npos)
    return broken(name, cat({what, " string at ", std::to_string(base + off), " unterminated"}));
  return std::string(rest.substr(0, nul));
}

Result<LdCache> parse_new(std::string_view b, size_t at, std::string_view name, LdCache cache) {
  if (b.size() - at < kNewHeader) return broken(name, "truncated glibc-ld.so.cache1.1 header");
  auto endian = static_cast<uint8_t>(b[at + 28]);
  if (endian == 1 || endian > 3)
    return broken(name, cat({"invalid byte-order flag ", std::to_string(endian)}));
  bool big = endian == 3;  // 0 (unset, written by old ldconfig) means the host's: little here
  uint64_t nlibs = get(b, at + 20, 4, big);
  if (nlibs > (b.size() - at - kNewHeader) / kNewEntry)
    return broken(name, cat({std::to_string(nlibs), " entries do not fit in ",
                             std::to_string(b.size()), " bytes"}));
  for (uint64_t i = 0; i < nlibs; ++i) {
    size_t e = at + kNewHeader + static_cast<size_t>(i) * kNewEntry;
    LdCacheEntry entry;
    entry.flags = static_cast<int32_t>(get(b, e, 4, big));
    auto key = string_at(b, at, get(b, e + 4, 4, big), name, "key");
    if (!key) return key.error();
    auto value = string_at(b, at, get(b, e + 8, 4, big), name, "value");
    if (!value) return value.error();
    entry.name = std::move(*key);
    entry.path = std::move(*value);
    entry.hwcap = get(b, e + 16, 8, big);
    cache.entries.push_back(std::move(entry));
  }
  return cache;
}

}  // namespace

Result<LdCache> parse_ld_cache(std::string_view b, std::string_view name) {
  LdCache cache;
  if (b.substr(0, kNewMagic.size()) == kNewMagic) {
    cache.format = "new";
    return parse_new(b, 0, name, std::move(cache));
  }
  if (b.substr(0, kOldMagic.size()) != kOldMagic)
    return broken(name, "unknown magic (neither glibc-ld.so.cache1.1 nor ld.so-1.7.0)");
  if (b.size() < kOldHeader) return broken(name, "truncated ld.so-1.7.0 header");
  uint64_t nlibs = get(b, 12, 4, false);
  if (nlibs > (b.size() - kOldHeader) / kOldEntry)
    return broken(name, cat({std::to_string(nlibs), " entries do not fit in ",
                             std::to_string(b.size()), " bytes"}));
  size_t old_end = kOldHeader + static_cast<size_t>(nlibs) * kOldEntry;
  // The loader prefers a new-format table that follows the old one (aligned to 8).
  size_t new_at = (old_end + 7) / 8 * 8;
  if (new_at <= b.size() && b.substr(new_at, kNewMagic.size()) == kNewMagic) {
    cache.format = "old+new";
    return parse_new(b, new_at, name, std::move(cache));
  }
  cache.format = "old";
  for (uint64_t i = 0; i < nlibs; ++i) {
    size_t e = kOldHeader + static_cast<size_t>(i) * kOldEntry;
    LdCacheEntry entry;
    entry.flags = static_cast<int32_t>(get(b, e, 4, false));
    auto key = string_at(b, old_end, get(b, e + 4, 4, false), name, "key");
    if (!key) return key.error();
    auto value = string_at(b, old_end, get(b, e + 8, 4, false), name, "value");
    if (!value) return value.error();
    entry.name = std::move(*key);
    entry.path = std::move(*value);
    cache.entries.push_back(std::move(entry));
  }
  return cache;
}

std::optional<int32_t> ld_cache_required_flags(uint16_t machine, bool is_64) {
  switch (machine) {
    case 62:  // EM_X86_64
      return is_64 ? 0x0303 : 0x0803;
    case 183:  // EM_AARCH64
      return 0x0a03;
    case 21:  // EM_PPC64
      return 0x0503;
    case 22:  // EM_S390
      return is_64 ? 0x0403 : kFlagElfLibc6;
    case 243:  // EM_RISCV (lp64d)
      return 0x1003;
    case 258:  // EM_LOONGARCH (double float)
      return 0x1203;
    case 3:  // EM_386
      return kFlagElfLibc6;
    default:
      return std::nullopt;
  }
}

bool ld_cache_accepts(const LdCacheEntry& e, uint16_t machine, bool is_64) {
  auto want = ld_cache_required_flags(machine, is_64);
  return want ? e.flags == *want : (e.flags & kFlagTypeMask) == kFlagElfLibc6;
}

const LdCacheEntry* ld_cache_lookup(const LdCache& cache, std::string_view soname, uint16_t machine,
                                    bool is_64) {
  for (const auto& e : cache.entries)
    if (e.name == soname && ld_cache_accepts(e, machine, is_64)) return &e;
  return nullptr;
}

}  // namespace anygpu
