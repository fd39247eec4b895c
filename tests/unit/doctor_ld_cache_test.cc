// /etc/ld.so.cache: this machine's real cache, hand-built caches in the new, old and combined
// formats (both byte orders for the new one), and damaged ones.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "host/ld_cache.h"
#include "test_support.h"

namespace anygpu {
namespace {

struct E {
  int32_t flags;
  std::string name, path;
};

void put(std::string& b, size_t at, uint64_t v, size_t width, bool big) {
  for (size_t i = 0; i < width; ++i)
    b[at + (big ? width - 1 - i : i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// format: "new", "old" or "old+new" — laid out as glibc's ldconfig writes them.
std::string make_cache(const std::vector<E>& es, const std::string& format, bool big = false) {
  bool with_old = format != "new", with_new = format != "old";
  size_t old_end = with_old ? 16 + es.size() * 12 : 0;
  size_t new_at = with_old ? (old_end + 7) / 8 * 8 : 0;
  size_t strings_at = with_new ? new_at + 48 + es.size() * 24 : old_end;
  std::string strings;
  std::vector<std::pair<size_t, size_t>> offs;
  for (const auto& e : es) {
    size_t k = strings.size();
    strings += e.name + '\0';
    size_t v = strings.size();
    strings += e.path + '\0';
    offs.push_back({k, v});
  }
  std::string b(strings_at + strings.size(), '\0');
  b.replace(strings_at, strings.size(), strings);
  if (with_old) {
    b.replace(0, 11, "ld.so-1.7.0");
    put(b, 12, es.size(), 4, false);
    for (size_t i = 0; i < es.size(); ++i) {
      size_t at = 16 + i * 12;
      put(b, at, static_cast<uint32_t>(es[i].flags), 4, false);
      put(b, at + 4, strings_at - old_end + offs[i].first, 4, false);
      put(b, at + 8, strings_at - old_end + offs[i].second, 4, false);
    }
  }
  if (with_new) {
    b.replace(new_at, 20, "glibc-ld.so.cache1.1");
    put(b, new_at + 20, es.size(), 4, big);
    put(b, new_at + 24, strings.size(), 4, big);
    b[new_at + 28] = big ? 3 : 2;
    for (size_t i = 0; i < es.size(); ++i) {
      size_t at = new_at + 48 + i * 24;
      put(b, at, static_cast<uint32_t>(es[i].flags), 4, big);
      put(b, at + 4, strings_at - new_at + offs[i].first, 4, big);
      put(b, at + 8, strings_at - new_at + offs[i].second, 4, big);
    }
  }
  return b;
}

const std::vector<E> kEntries = {
    {0x0303, "libcudart.so.12", "/usr/local/cuda/lib64/libcudart.so.12"},
    {0x0003, "libcudart.so.12", "/usr/lib/i386-linux-gnu/libcudart.so.12"},
    {0x0a03, "libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"},
    {0x0303, "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"},
};

TEST(DoctorLdCache, RealCacheOfThisMachine) {
  std::ifstream in("/etc/ld.so.cache", std::ios::binary);
  ASSERT_TRUE(in) << "/etc/ld.so.cache is missing: run ldconfig";
  std::stringstream ss;
  ss << in.rdbuf();
  auto cache = parse_ld_cache(ss.str(), "/etc/ld.so.cache");
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  EXPECT_FALSE(cache->entries.empty());
#if defined(__x86_64__)
  auto* libc = ld_cache_lookup(*cache, "libc.so.6", 62, true);
  ASSERT_NE(libc, nullptr);
  EXPECT_NE(libc->path.find("libc.so.6"), std::string::npos);
  EXPECT_TRUE(std::ifstream(libc->path).good()) << libc->path;
#endif
}

TEST(DoctorLdCache, EveryFormatAndByteOrder) {
  for (auto [format, big] : std::vector<std::pair<std::string, bool>>{
           {"new", false}, {"new", true}, {"old", false}, {"old+new", false}}) {
    auto cache = parse_ld_cache(make_cache(kEntries, format, big), "c");
    ASSERT_TRUE(cache.ok()) << format << ": " << cache.error().message;
    EXPECT_EQ(cache->format, format);
    ASSERT_EQ(cache->entries.size(), kEntries.size());
    for (size_t i = 0; i < kEntries.size(); ++i) {
      EXPECT_EQ(cache->entries[i].name, kEntries[i].name);
      EXPECT_EQ(cache->entries[i].path, kEntries[i].path);
      EXPECT_EQ(cache->entries[i].flags, kEntries[i].flags);
    }
    // The loader takes only entries for the asking object's machine and class.
    auto* x64 = ld_cache_lookup(*cache, "libcudart.so.12", 62, true);
    ASSERT_NE(x64, nullptr);
    EXPECT_EQ(x64->path, "/usr/local/cuda/lib64/libcudart.so.12");
    auto* arm = ld_cache_lookup(*cache, "libc.so.6", 183, true);
    ASSERT_NE(arm, nullptr);
    EXPECT_EQ(arm->path, "/lib/aarch64-linux-gnu/libc.so.6");
    EXPECT_EQ(ld_cache_lookup(*cache, "libcudart.so.12", 183, true), nullptr);
    EXPECT_EQ(ld_cache_lookup(*cache, "libnothing.so.1", 62, true), nullptr);
  }
}

TEST(DoctorLdCache, TruncatedAtEveryLengthFailsNamingThePath) {
  for (const auto& format : {"new", "old", "old+new"}) {
    auto b = make_cache(kEntries, format);
    for (size_t n = 0; n < b.size(); ++n) {
      auto r = parse_ld_cache(std::string_view(b).substr(0, n), "/root/etc/ld.so.cache");
      if (r.ok()) {
        // A cut inside the old part's trailing strings can still parse as old-only when the
        // new table is gone; it must never invent entries.
        EXPECT_LE(r->entries.size(), kEntries.size());
        continue;
      }
      EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
      EXPECT_EQ(r.error().message.rfind("/root/etc/ld.so.cache: malformed ld.so.cache", 0), 0u)
          << r.error().message;
    }
  }
}

TEST(DoctorLdCache, GarbageHugeCountsAndBadOffsets) {
  auto r = parse_ld_cache(std::string(100, '\x5a'), "g");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown magic"), std::string::npos);
  EXPECT_FALSE(parse_ld_cache("", "empty").ok());
  auto b = make_cache(kEntries, "new");
  auto huge = b;
  put(huge, 20, 0xffffffff, 4, false);
  r = parse_ld_cache(huge, "huge");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("do not fit"), std::string::npos) << r.error().message;
  auto off = b;
  put(off, 48 + 8, 0x7fffffff, 4, false);  // first entry's value string
  r = parse_ld_cache(off, "off");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("outside the file"), std::string::npos) << r.error().message;
  auto endian = b;
  endian[28] = 1;  // cache_file_new_flags_endian_invalid
  EXPECT_FALSE(parse_ld_cache(endian, "endian").ok());
  auto old = make_cache(kEntries, "old");
  put(old, 12, 0x10000000, 4, false);
  EXPECT_FALSE(parse_ld_cache(old, "old").ok());
  // A string without its terminating NUL at the very end of the file.
  auto unterminated = b;
  unterminated.pop_back();
  r = parse_ld_cache(unterminated, "nul");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unterminated"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace anygpu
