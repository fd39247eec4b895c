#include "image/code_objects.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "util/strings.h"

namespace anygpu::image {

namespace {

constexpr std::string_view kFatbinMagic("\x50\xed\x55\xba", 4);  // 0xBA55ED50, little endian
constexpr std::string_view kBundleMagic("__CLANG_OFFLOAD_BUNDLE__");
constexpr std::string_view kCompressedMagic("CCOB");
constexpr size_t kChunk = size_t{1} << 20;
constexpr size_t kMaxHeaderWindow = size_t{4} << 20;  // a bundle header or CCOB start must fit

uint64_t le(std::string_view b, size_t off, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i)
    v |= uint64_t(static_cast<unsigned char>(b[off + i])) << (8 * i);
  return v;
}

// A look-ahead buffer over the stream: `fill` makes bytes available, `consume` drops them.
class Window {
 public:
  explicit Window(ByteSource& in) : in_(in) {}
  Result<size_t> fill(size_t want) {
    if (begin_ > 0 && buf_.size() - begin_ < want) {
      buf_.erase(0, begin_);
      begin_ = 0;
    }
    while (!eof_ && buf_.size() - begin_ < want) {
      size_t old = buf_.size();
      buf_.resize(old + std::max<size_t>(want - (old - begin_), 65536));
      auto r = in_.read(buf_.data() + old, buf_.size() - old);
      if (!r) return r.error();
      buf_.resize(old + *r);
      if (*r == 0) eof_ = true;
    }
    return buf_.size() - begin_;
  }
  std::string_view view() const { return std::string_view(buf_).substr(begin_); }
  void consume(size_t n) { begin_ += n, pos_ += n; }
  uint64_t pos() const { return pos_; }
  // Drops `n` bytes, reading past what is buffered.
  std::optional<Error> skip(uint64_t n) {
    size_t here = static_cast<size_t>(std::min<uint64_t>(n, buf_.size() - begin_));
    consume(here);
    n -= here;
    while (n > 0) {
      auto got = fill(static_cast<size_t>(std::min<uint64_t>(n, kChunk)));
      if (!got) return got.error();
      if (*got == 0) return std::nullopt;  // the library ends early: nothing more to find
      size_t take = static_cast<size_t>(std::min<uint64_t>(n, *got));
      consume(take);
      n -= take;
    }
    return std::nullopt;
  }

 private:
  ByteSource& in_;
  std::string buf_;
  size_t begin_ = 0;
  uint64_t pos_ = 0;
  bool eof_ = false;
};

struct Found {
  std::set<int> sass, ptx;
  std::set<std::string> specific;
  std::set<std::string> gfx;
  int unread = 0;
};

// The target id of a bundle entry id: "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-" -> "gfx942:xnack-";
// "" for the host entry and ids without a gfx processor.
std::string bundle_target(std::string_view id) {
  if (id.rfind("host-", 0) == 0) return "";
  auto at = id.find("-gfx");
  if (at == std::string_view::npos) return "";
  auto t = id.substr(at + 1);
  bool clean = std::all_of(t.begin(), t.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '+' || c == '-';
  });
  return clean && t.size() <= 64 ? std::string(t) : "";
}

// An uncompressed bundle's header at the start of `b`; its total extent (header and code
// objects), or nullopt when `b` is no bundle header.
std::optional<uint64_t> parse_bundle(std::string_view b, Found& out) {
  if (b.size() < 32 || b.substr(0, kBundleMagic.size()) != kBundleMagic) return std::nullopt;
  uint64_t count = le(b, 24, 8);
  if (count == 0 || count > 4096) return std::nullopt;
  size_t at = 32;
  uint64_t extent = 0;
  std::vector<std::string> targets;
  for (uint64_t i = 0; i < count; ++i) {
    if (b.size() - at < 24) return std::nullopt;
    uint64_t off = le(b, at, 8), size = le(b, at + 8, 8), idlen = le(b, at + 16, 8);
    at += 24;
    if (idlen == 0 || idlen > 1024 || b.size() - at < idlen) return std::nullopt;
    if (off > (uint64_t{1} << 40) || size > (uint64_t{1} << 40)) return std::nullopt;
    extent = std::max(extent, off + size);
    auto t = bundle_target(b.substr(at, static_cast<size_t>(idlen)));
    if (!t.empty()) targets.push_back(t);
    at += static_cast<size_t>(idlen);
  }
  for (auto& t : targets) out.gfx.insert(std::move(t));
  return std::max<uint64_t>(extent, at);
}

// The start of a zlib stream inflated into at most 64 KiB.
std::string inflate_start(std::string_view in) {
  std::string out(65536, '\0');
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return "";
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 1u << 30));
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_SYNC_FLUSH);
  size_t got = out.size() - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return "";
  out.resize(got);
  return out;
}

// A CCOB header at the start of `b`: bytes to pass over, or nullopt when it is none.
std::optional<uint64_t> parse_compressed(std::string_view b, Found& out) {
  if (b.size() < 16) return std::nullopt;
  uint64_t version = le(b, 4, 2), method = le(b, 6, 2);
  if (version < 1 || version > 3 || method > 1) return std::nullopt;
  size_t header = version == 1 ? 16 : version == 2 ? 24 : 32;
  uint64_t total = version == 1 ? 0 : le(b, 8, version == 2 ? 4 : 8);
  if (b.size() < header || (version > 1 && (total < header || total > (uint64_t{1} << 36))))
    return std::nullopt;
  auto data = b.substr(header, version > 1 ? static_cast<size_t>(std::min<uint64_t>(
                                                 total - header, b.size() - header))
                                           : std::string_view::npos);
  // Method 0 is zlib, 1 zstd (llvm::compression::Format); only the inner bundle's header is
  // decompressed, never the code objects after it.
  auto inner = method == 1 ? zstd_start(data, 65536) : inflate_start(data);
  if (!parse_bundle(inner, out)) ++out.unread;
  return version > 1 ? total : header;
}

// A fat binary container at the window's start, read entry by entry (each payload is skipped,
// never buffered): bytes still to pass over, or nullopt when it is no container.
Result<std::optional<uint64_t>> parse_fatbin(Window& w, Found& out) {
  auto got = w.fill(16);
  if (!got) return got.error();
  auto h = w.view();
  if (h.size() < 16) return std::optional<uint64_t>();
  uint64_t version = le(h, 4, 2), header = le(h, 6, 2), files = le(h, 8, 8);
  if (version != 1 || header < 16 || header > 256 || files > (uint64_t{1} << 36))
    return std::optional<uint64_t>();
  auto entry_ok = [](std::string_view e) {
    uint64_t kind = le(e, 0, 2), eheader = le(e, 4, 4), sm = le(e, 28, 4);
    return (kind == 1 || kind == 2) && eheader >= 64 && eheader <= 1024 && sm >= 10 && sm <= 255;
  };
  auto first = w.fill(static_cast<size_t>(header) + 64);
  if (!first) return first.error();
  if (files < 64 || w.view().size() < header + 64 || !entry_ok(w.view().substr(header)))
    return std::optional<uint64_t>();
  w.consume(static_cast<size_t>(header));
  for (uint64_t done = 0; done + 64 <= files;) {
    auto more = w.fill(64);
    if (!more) return more.error();
    auto e = w.view();
    if (e.size() < 64 || !entry_ok(e)) return std::optional<uint64_t>(0);
    uint64_t eheader = le(e, 4, 4), payload = le(e, 8, 4);
    bool is_ptx = le(e, 0, 2) == 1;
    int sm = static_cast<int>(le(e, 28, 4));
    uint64_t flags = le(e, 40, 8);
    char variant = flags & 0x100000 ? 'a' : flags & 0x200000 ? 'f' : 0;
    if (variant)
      out.specific.insert(
          cat({is_ptx ? "compute_" : "sm_", std::to_string(sm), std::string(1, variant)}));
    else
      (is_ptx ? out.ptx : out.sass).insert(sm);
    uint64_t step = eheader + ((payload + 7) & ~uint64_t{7});
    if (step > files - done) return std::optional<uint64_t>(0);
    if (auto err = w.skip(step)) return *err;
    done += step;
  }
  return std::optional<uint64_t>(0);
}

// The earliest candidate at or after the window's start: its offset and which magic.
std::pair<size_t, int> next_candidate(std::string_view v, uint64_t pos) {
  size_t best = std::string_view::npos;
  int which = -1;
  for (size_t from = 0;;) {
    auto f = v.find(kFatbinMagic, from);
    if (f == std::string_view::npos) break;
    if ((pos + f) % 8 == 0) {
      best = f, which = 0;
      break;
    }
    from = f + 1;
  }
  // Only before the fat binary found: a library holds thousands of them, and searching the
  // whole window for the other magics at each one would make the scan quadratic.
  auto before = [&](std::string_view magic) {
    return best == std::string_view::npos ? v : v.substr(0, best + magic.size() - 1);
  };
  auto b = before(kBundleMagic).find(kBundleMagic);
  if (b < best) best = b, which = 1;
  auto c = before(kCompressedMagic).find(kCompressedMagic);
  if (c < best) best = c, which = 2;
  return {best, which};
}

}  // namespace

std::vector<std::string> CodeObjects::arch_names() const {
  std::vector<std::string> out;
  for (int s : sass) out.push_back("sm_" + std::to_string(s));
  for (const auto& s : specific)
    if (s.rfind("sm_", 0) == 0) out.push_back(s);
  for (int p : ptx) out.push_back("compute_" + std::to_string(p));
  for (const auto& s : specific)
    if (s.rfind("compute_", 0) == 0) out.push_back(s);
  for (const auto& g : gfx) out.push_back(g);
  return out;
}

Result<CodeObjects> scan_code_objects(ByteSource& in) {
  Window w(in);
  Found found;
  for (;;) {
    auto got = w.fill(kChunk);
    if (!got) return got.error();
    if (*got == 0) break;
    auto v = w.view();
    auto [at, which] = next_candidate(v, w.pos());
    if (which < 0) {
      // Keep a magic's length minus one: a candidate may straddle the next read.
      bool last = *got < kChunk;
      w.consume(last ? v.size() : v.size() - std::min(v.size(), kBundleMagic.size() - 1));
      if (last) break;
      continue;
    }
    w.consume(at);
    std::optional<uint64_t> extent;
    if (which == 0) {
      auto r = parse_fatbin(w, found);
      if (!r) return r.error();
      extent = *r;
    } else {
      auto more = w.fill(kMaxHeaderWindow);
      if (!more) return more.error();
      extent = which == 1 ? parse_bundle(w.view(), found) : parse_compressed(w.view(), found);
    }
    if (!extent) {
      w.consume(1);
      continue;
    }
    if (auto e = w.skip(*extent)) return *e;
  }
  CodeObjects out;
  out.sass.assign(found.sass.begin(), found.sass.end());
  out.ptx.assign(found.ptx.begin(), found.ptx.end());
  out.gfx.assign(found.gfx.begin(), found.gfx.end());
  out.specific.assign(found.specific.begin(), found.specific.end());
  out.unread_bundles = found.unread;
  return out;
}

CodeObjects scan_code_objects_in(std::string_view bytes) {
  MemorySource src(bytes);
  auto r = scan_code_objects(src);
  return r ? *r : CodeObjects{};
}

Result<size_t> MemorySource::read(void* out, size_t n) {
  n = std::min(n, bytes_.size());
  if (n == 0) return n;  // an empty view's data() may be null, which memcpy may not take
  std::memcpy(out, bytes_.data(), n);
  bytes_.remove_prefix(n);
  return n;
}

}  // namespace anygpu::image
