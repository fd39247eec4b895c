#include "image/tar_reader.h"

#include <cstring>
#include <vector>

#include "util/strings.h"

namespace anygpu::image {

namespace {

constexpr size_t kBlock = 512;

std::string_view tar_field(const char* block, size_t off, size_t len) {
  std::string_view f(block + off, len);
  auto nul = f.find('\0');
  return nul == std::string_view::npos ? f : f.substr(0, nul);
}

// Octal (space/NUL terminated) or GNU base-256 (high bit of the first byte).
std::optional<uint64_t> tar_number(const char* p, size_t len) {
  auto u = reinterpret_cast<const unsigned char*>(p);
  if (u[0] & 0x80) {
    if (u[0] != 0x80) return std::nullopt;  // negative or too wide
    uint64_t v = 0;
    for (size_t i = 1; i < len; ++i) {
      if (v >> 56) return std::nullopt;
      v = v << 8 | u[i];
    }
    return v;
  }
  uint64_t v = 0;
  size_t i = 0;
  while (i < len && p[i] == ' ') ++i;
  bool any = false;
  for (; i < len && p[i] >= '0' && p[i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = v * 8 + static_cast<uint64_t>(p[i] - '0');
    any = true;
  }
  for (; i < len; ++i)
    if (p[i] != ' ' && p[i] != '\0') return std::nullopt;
  return any ? std::optional<uint64_t>(v) : std::optional<uint64_t>(0);
}

bool checksum_ok(const char* b) {
  auto stored = tar_number(b + 148, 8);
  if (!stored) return false;
  uint64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i)
    sum += (i >= 148 && i < 156) ? uint64_t{' '} : static_cast<unsigned char>(b[i]);
  return sum == *stored;
}

bool all_zero(const char* b) {
  for (size_t i = 0; i < kBlock; ++i)
    if (b[i]) return false;
  return true;
}

struct PaxRecords {
  std::optional<std::string> path, linkpath;
  std::optional<uint64_t> size;
};

// "LEN key=value\n" records.
std::optional<PaxRecords> parse_pax(std::string_view text) {
  PaxRecords out;
  while (!text.empty()) {
    auto sp = text.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp > 20) return std::nullopt;
    uint64_t len = 0;
    for (char c : text.substr(0, sp)) {
      if (c < '0' || c > '9') return std::nullopt;
      len = len * 10 + static_cast<uint64_t>(c - '0');
    }
    if (len <= sp + 1 || len > text.size() || text[len - 1] != '\n') return std::nullopt;
    auto rec = text.substr(sp + 1, len - sp - 2);
    auto eq = rec.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    auto key = rec.substr(0, eq);
    auto value = std::string(rec.substr(eq + 1));
    if (key == "path") out.path = value;
    if (key == "linkpath") out.linkpath = value;
    if (key == "size") {
      uint64_t v = 0;
      for (char c : value) {
        if (c < '0' || c > '9' || v > (uint64_t{1} << 58)) return std::nullopt;
        v = v * 10 + static_cast<uint64_t>(c - '0');
      }
      out.size = v;
    }
    text.remove_prefix(len);
  }
  return out;
}

TarMember::Kind kind_of_type(char type) {
  switch (type) {
    case '0':
    case '\0':
    case '7':
      return TarMember::Kind::file;
    case '5':
      return TarMember::Kind::dir;
    case '2':
      return TarMember::Kind::symlink;
    case '1':
      return TarMember::Kind::hardlink;
    default:
      return TarMember::Kind::other;
  }
}

// The member a header block describes (with the long names and pax records before it), its
// path normalised and its claims checked.
Result<TarMember> describe_member(const char* b, uint64_t size,
                                  const std::optional<std::string>& long_name,
                                  const std::optional<std::string>& long_link,
                                  const PaxRecords& pax, const std::string& what) {
  TarMember m;
  std::string raw = pax.path.value_or(long_name.value_or(""));
  if (raw.empty()) {
    auto prefix = tar_field(b, 345, 155);
    auto name = tar_field(b, 0, 100);
    bool ustar = std::memcmp(b + 257, "ustar", 5) == 0;
    raw = ustar && !prefix.empty() ? cat({prefix, "/", name}) : std::string(name);
  }
  m.link = pax.linkpath.value_or(long_link.value_or(std::string(tar_field(b, 157, 100))));
  m.size = pax.size.value_or(size);
  auto path = normalize_member_path(raw, what);
  if (!path) return path.error();
  m.path = *path;
  m.kind = kind_of_type(b[156]);
  if (m.size > kMaxMemberBytes)
    return bad_input(cat({what, ": member '", m.path, "' claims ", std::to_string(m.size),
                          " bytes (limit ", std::to_string(kMaxMemberBytes >> 30), " GiB)"}));
  if (m.kind == TarMember::Kind::hardlink) {
    auto target = normalize_member_path(m.link, what);
    if (!target) return target.error();
    m.link = *target;
  }
  if (m.kind == TarMember::Kind::symlink && !link_stays_inside(m.path, m.link))
    return bad_input(
        cat({what, ": symlink '", m.path, "' -> '", m.link, "' leaves the image's root"}));
  return m;
}

}  // namespace

Result<std::string> normalize_member_path(std::string_view raw, const std::string& what) {
  auto quoted = [&] { return cat({what, ": member '", std::string(raw), "'"}); };
  if (!raw.empty() && raw.front() == '/')
    return bad_input(cat({quoted(), " has an absolute path"}));
  std::string out;
  for (auto part : split(raw, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return bad_input(cat({quoted(), " climbs out of the root with '..'"}));
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

bool link_stays_inside(std::string_view path, std::string_view target) {
  if (!target.empty() && target.front() == '/') return true;  // resolved from the image's root
  auto parts = split(path, '/');
  long depth = static_cast<long>(parts.size()) - 1;  // the link's directory
  for (auto part : split(target, '/')) {
    if (part.empty() || part == ".") continue;
    depth += part == ".." ? -1 : 1;
    if (depth < 0) return false;
  }
  return true;
}

Result<bool> TarReader::block(char* out) {
  auto r = read_exact(in_, out, kBlock, what_);
  if (r && *r) consumed_ += kBlock;
  return r;
}

Result<std::string> TarReader::read_meta(uint64_t size) {
  if (size > kMaxMetaBytes)
    return bad_input(cat({what_, ": a long-name or pax record of ", std::to_string(size),
                          " bytes (limit ", std::to_string(kMaxMetaBytes), ")"}));
  std::string text(static_cast<size_t>(size), '\0');
  auto r = read_exact(in_, text.data(), text.size(), what_);
  if (!r) return r.error();
  if (!*r && size > 0) return bad_input(cat({what_, ": truncated inside a header record"}));
  uint64_t pad = (kBlock - size % kBlock) % kBlock;
  if (auto e = skip_exact(in_, pad, what_)) return *e;
  consumed_ += size + pad;
  return text;
}

std::optional<Error> TarReader::finish_member() {
  uint64_t n = remaining_ + padding_;
  remaining_ = padding_ = 0;
  consumed_ += n;
  return skip_exact(in_, n, what_);
}

Result<std::optional<TarMember>> TarReader::next() {
  if (ended_) return std::optional<TarMember>();
  if (auto e = finish_member()) return *e;
  std::optional<std::string> long_name, long_link;
  PaxRecords pax;
  char b[kBlock];
  for (;;) {
    auto got = block(b);
    if (!got) return got.error();
    // The end: two zero blocks; a stream that stops at a header boundary ends too (the
    // layer's digest, checked by the caller, tells a cut archive from a complete one).
    if (!*got || all_zero(b)) {
      ended_ = true;
      return std::optional<TarMember>();
    }
    if (!checksum_ok(b))
      return bad_input(cat({what_, ": bad tar header checksum at byte ",
                            std::to_string(consumed_ - kBlock), " (corrupt or not a tar)"}));
    auto size = tar_number(b + 124, 12);
    if (!size)
      return bad_input(
          cat({what_, ": unreadable size field at byte ", std::to_string(consumed_ - kBlock)}));
    char type = b[156];
    if (type == 'L' || type == 'K' || type == 'x' || type == 'g') {
      auto text = read_meta(*size);
      if (!text) return text.error();
      auto body = std::string_view(*text);
      if (type == 'L' || type == 'K') {
        auto nul = body.find('\0');
        (type == 'L' ? long_name : long_link) = std::string(body.substr(0, nul));
      } else if (type == 'x') {
        auto p = parse_pax(body);
        if (!p)
          return bad_input(
              cat({what_, ": malformed pax header at byte ", std::to_string(consumed_)}));
        pax = *p;
      }
      continue;
    }
    auto m = describe_member(b, *size, long_name, long_link, pax, what_);
    if (!m) return m.error();
    remaining_ = m->size;
    padding_ = (kBlock - m->size % kBlock) % kBlock;
    return std::optional<TarMember>(std::move(*m));
  }
}

Result<size_t> TarReader::read(void* out, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
  if (n == 0) return size_t{0};
  auto r = in_.read(out, n);
  if (!r) return r.error();
  if (*r == 0) return bad_input(cat({what_, ": truncated inside a member's data"}));
  remaining_ -= *r;
  consumed_ += *r;
  return r;
}

}  // namespace anygpu::image
