// /etc/ld.so.cache, as glibc's loader reads it: the "glibc-ld.so.cache1.1" format (glibc ≥ 2.32
// writes only this), the old "ld.so-1.7.0" format, and the old format followed by the new one
// (what ldconfig wrote before 2.32; the loader then uses the new part). Bounds-checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

struct LdCacheEntry {
  int32_t flags = 0;  // FLAG_ELF_LIBC6 (3) | arch bits (0x0300 x86-64, 0x0a00 aarch64, …)
  std::string name;   // the soname, "libcudart.so.12"
  std::string path;   // "/usr/lib/x86_64-linux-gnu/libcudart.so.12"
  uint64_t hwcap = 0;
};

struct LdCache {
  std::string format;  // "new", "old" or "old+new"
  std::vector<LdCacheEntry> entries;
};

// Where the loader keeps its cache, and the most anygpu reads of it.
inline constexpr std::string_view kLdSoCachePath = "/etc/ld.so.cache";
inline constexpr size_t kMaxLdCacheBytes = size_t{64} << 20;

// The ELF machine and class of this build: the objects its loader (and a container's on the
// same host) would take from the cache.
#if defined(__x86_64__)
inline constexpr uint16_t kNativeElfMachine = 62;
#elif defined(__aarch64__)
inline constexpr uint16_t kNativeElfMachine = 183;
#else
inline constexpr uint16_t kNativeElfMachine = 0;
#endif
inline constexpr bool kNativeElf64 = sizeof(void*) == 8;

// `name` (the file's path) goes into error messages.
Result<LdCache> parse_ld_cache(std::string_view bytes, std::string_view name);

// The ld.so.cache flags the loader accepts for objects of this ELF machine and class
// (sysdeps/*/dl-cache.h _dl_cache_check_flags); nullopt: unknown machine, any libc6 entry.
std::optional<int32_t> ld_cache_required_flags(uint16_t machine, bool is_64);

// Whether the loader takes this entry for objects of (machine, class).
bool ld_cache_accepts(const LdCacheEntry& entry, uint16_t machine, bool is_64);

// The first entry for `soname` the loader would take for objects of (machine, class).
const LdCacheEntry* ld_cache_lookup(const LdCache& cache, std::string_view soname, uint16_t machine,
                                    bool is_64);

}  // namespace anygpu
