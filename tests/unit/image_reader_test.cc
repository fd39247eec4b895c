// The image readers on bytes made in the test: tar members and their bounds, gzip inflation
// (truncated, corrupt, a bomb), and GPU code objects in fat binaries and offload bundles.
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <optional>

#include "image/byte_source.h"
#include "image/code_objects.h"
#include "image/docker_store.h"
#include "image/tar_reader.h"

namespace anygpu::image {
namespace {

// One ustar header block (checksum filled in) for `name`.
std::string tar_header(const std::string& name, uint64_t size, char type = '0',
                       const std::string& link = "") {
  std::string b(512, '\0');
  std::memcpy(b.data(), name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(b.data() + 100, 8, "%07o", 0644);
  std::snprintf(b.data() + 124, 12, "%011llo", static_cast<unsigned long long>(size));
  b[156] = type;
  std::memcpy(b.data() + 157, link.data(), std::min<size_t>(link.size(), 100));
  std::memcpy(b.data() + 257,
              "ustar\0"
              "00",
              8);
  std::memset(b.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : b) sum += c;
  std::snprintf(b.data() + 148, 8, "%06o", sum);
  return b;
}

std::string member(const std::string& name, const std::string& data, char type = '0',
                   const std::string& link = "") {
  auto out = tar_header(name, data.size(), type, link) + data;
  out.resize((out.size() + 511) / 512 * 512, '\0');
  return out;
}

std::string end_blocks() {
  return std::string(1024, '\0');
}

// Every member of `bytes`, or the first error's message.
std::string list(const std::string& bytes) {
  MemorySource src(bytes);
  TarReader tar(src, "layer 1 (sha256:test)");
  std::string out;
  for (;;) {
    auto m = tar.next();
    if (!m) return "error: " + m.error().message;
    if (!*m) return out;
    out += (*m)->path + ";";
  }
}

TEST(ImageTar, MembersNormalised) {
  auto t = member("./usr/lib/", "", '5') + member("./usr/lib/libx.so", "hello") + end_blocks();
  EXPECT_EQ(list(t), "usr/lib;usr/lib/libx.so;");
}

TEST(ImageTar, ClimbingAndAbsolutePathsRefused) {
  EXPECT_EQ(list(member("usr/../../etc/passwd", "x") + end_blocks()),
            "error: layer 1 (sha256:test): member 'usr/../../etc/passwd' climbs out of the root "
            "with '..'");
  EXPECT_EQ(list(member("/etc/passwd", "x") + end_blocks()),
            "error: layer 1 (sha256:test): member '/etc/passwd' has an absolute path");
  auto hard = list(member("usr/lib/x", "", '1', "../../etc/shadow") + end_blocks());
  EXPECT_NE(hard.find("climbs out of the root"), std::string::npos) << hard;
}

TEST(ImageTar, SymlinksLeavingTheRootRefused) {
  EXPECT_EQ(list(member("usr/lib/a", "", '2', "../../../etc/passwd") + end_blocks()),
            "error: layer 1 (sha256:test): symlink 'usr/lib/a' -> '../../../etc/passwd' leaves "
            "the image's root");
  // Inside the root, and absolute targets (resolved from the image's root), are fine.
  EXPECT_EQ(list(member("usr/lib/a", "", '2', "../../bin/x") + end_blocks()), "usr/lib/a;");
  EXPECT_EQ(list(member("usr/lib/a", "", '2', "/lib/libc.so.6") + end_blocks()), "usr/lib/a;");
}

TEST(ImageTar, BadChecksumAndTruncation) {
  auto t = member("a", "data") + end_blocks();
  t[0] = 'b';  // the checksum no longer matches
  EXPECT_NE(list(t).find("bad tar header checksum at byte 0"), std::string::npos) << list(t);
  auto cut = member("a", std::string(2000, 'x')).substr(0, 1000);
  MemorySource src(cut);
  TarReader tar(src, "layer 2 (sha256:cut)");
  ASSERT_TRUE(tar.next().ok());
  auto next = tar.next();  // skipping the rest of the data runs into the end
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.error().message.find("layer 2 (sha256:cut): truncated"), std::string::npos)
      << next.error().message;
  EXPECT_NE(list(member("a", "x").substr(0, 300)).find("truncated"), std::string::npos);
}

TEST(ImageTar, HugeClaimedSizeRefused) {
  auto h = tar_header("usr/lib/huge.so", 0);
  // GNU base-256: 2^50 bytes (a petabyte).
  std::memset(h.data() + 124, 0, 12);
  h[124] = static_cast<char>(0x80);
  h[129] = 0x04;  // 0x04 << (8 * 6) = 2^50
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h.data() + 148, 8, "%06o", sum);
  auto r = list(h + end_blocks());
  EXPECT_NE(r.find("member 'usr/lib/huge.so' claims 1125899906842624 bytes"), std::string::npos)
      << r;
}

TEST(ImageTar, PaxAndGnuLongNames) {
  std::string long_path =
      "usr/local/lib/python3.11/site-packages/" + std::string(90, 'p') + "/torch/version.py";
  std::string rec = " path=" + long_path + "\n";
  auto len = rec.size() + 3;
  std::string pax = std::to_string(len) + rec;
  ASSERT_EQ(pax.size(), len);
  auto t = member("PaxHeaders/x", pax, 'x') + member("short", "v");
  t += member("././@LongLink", long_path + '\0', 'L') + member("short2", "w") + end_blocks();
  EXPECT_EQ(list(t), long_path + ";" + long_path + ";");
  auto bad = member("PaxHeaders/x", "99 path=x\n", 'x') + member("short", "v") + end_blocks();
  EXPECT_NE(list(bad).find("malformed pax header"), std::string::npos);
}

std::string gzip_of(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

Result<std::string> inflate_all(const std::string& gz, uint64_t cap = 1 << 30) {
  MemorySource src(gz);
  GzipSource in(src, cap, "layer 3 (sha256:gz)");
  std::string out;
  char buf[4096];
  for (;;) {
    auto r = in.read(buf, sizeof buf);
    if (!r) return r.error();
    if (*r == 0) return out;
    out.append(buf, *r);
  }
}

TEST(ImageGzip, InflatesConcatenatedMembers) {
  std::string a(100000, 'a'), b = "tail";
  auto r = inflate_all(gzip_of(a) + gzip_of(b));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, a + b);
}

TEST(ImageGzip, TruncatedCorruptAndBombRefused) {
  auto gz = gzip_of(std::string(200000, 'z') + "end");
  auto cut = inflate_all(gz.substr(0, gz.size() / 2));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "layer 3 (sha256:gz): truncated gzip stream");
  auto bad = gz;
  bad[12] ^= 0x55;
  bad[13] ^= 0x55;
  auto corrupt = inflate_all(bad);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.error().message.find("layer 3 (sha256:gz): corrupt gzip stream"),
            std::string::npos)
      << corrupt.error().message;
  auto bomb = inflate_all(gzip_of(std::string(4 << 20, '\0')), 1 << 20);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.error().message.find("inflates beyond 1 MiB"), std::string::npos);
}

std::string le(uint64_t v, int width) {
  std::string out;
  for (int i = 0; i < width; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// A fat binary container (kind 1 = PTX, 2 = ELF) with 64-byte entry headers; `flags` is the
// u64 at 0x28 (0x11, with 0x100000 for sm_XYa, 0x200000 for sm_XYf, as nvcc 13.0 writes).
std::string fatbin(const std::vector<std::pair<int, int>>& entries, uint64_t flags = 0x11) {
  std::string body;
  for (auto [kind, sm] : entries) {
    std::string payload(20, static_cast<char>(sm));
    std::string h = le(kind, 2) + le(0x101, 2) + le(64, 4) + le(24, 4) + std::string(16, '\0') +
                    le(sm, 4) + le(64, 4) + le(0, 4) + le(flags, 8);
    h.resize(64, '\0');
    payload.resize(24, '\0');
    body += h + payload;
  }
  return le(0xBA55ED50, 4) + le(1, 2) + le(16, 2) + le(body.size(), 8) + body;
}

std::string bundle(const std::vector<std::string>& ids) {
  std::string entries, objects;
  uint64_t header = 32;
  for (const auto& id : ids) header += 24 + id.size();
  uint64_t at = header;
  for (const auto& id : ids) {
    std::string code = id.rfind("host", 0) == 0 ? ""
                                                : "\x7f"
                                                  "ELFcode";
    entries += le(at, 8) + le(code.size(), 8) + le(id.size(), 8) + id;
    objects += code;
    at += code.size();
  }
  return "__CLANG_OFFLOAD_BUNDLE__" + le(ids.size(), 8) + entries + objects;
}

std::string zlib_bytes(const std::string& in) {
  uLongf n = compressBound(in.size());
  std::string data(n, '\0');
  compress(reinterpret_cast<Bytef*>(data.data()), &n, reinterpret_cast<const Bytef*>(in.data()),
           in.size());
  data.resize(n);
  return data;
}

// One zstd frame made by libzstd's own compressor.
std::string zstd_bytes(const std::string& in, int level = 3) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level));
  return out;
}

// A CCOB bundle (clang's ClangOffloadBundler.rst): version 2 has u32 sizes, 3 u64 ones.
std::string ccob(const std::string& inner, int method, int version = 2,
                 std::optional<std::string> data = std::nullopt) {
  if (!data) data = method == 1 ? zstd_bytes(inner) : zlib_bytes(inner);
  if (version == 3)
    return "CCOB" + le(3, 2) + le(method, 2) + le(32 + data->size(), 8) + le(inner.size(), 8) +
           le(0, 8) + *data;
  return "CCOB" + le(2, 2) + le(method, 2) + le(24 + data->size(), 4) + le(inner.size(), 4) +
         le(0, 8) + *data;
}

std::string padded(std::string s, size_t to) {
  s.resize((s.size() + to - 1) / to * to, '\0');
  return s;
}

TEST(ImageCodeObjects, FatbinArchsFromEntryHeaders) {
  auto lib = padded(
                 "\x7f"
                 "ELF some header bytes",
                 4096) +
             padded(fatbin({{2, 80}, {2, 90}, {1, 90}}), 8) + fatbin({{2, 86}}) + "tail";
  auto c = scan_code_objects_in(lib);
  EXPECT_EQ(c.sass, (std::vector<int>{80, 86, 90}));
  EXPECT_EQ(c.ptx, (std::vector<int>{90}));
  EXPECT_EQ(c.arch_names(), (std::vector<std::string>{"sm_80", "sm_86", "sm_90", "compute_90"}));
}

TEST(ImageCodeObjects, ArchAndFamilySpecificTargets) {
  auto lib = fatbin({{2, 90}, {1, 90}}, 0x100011) + fatbin({{2, 100}}, 0x1200011) +
             fatbin({{2, 80}}, 0x1000011);
  auto c = scan_code_objects_in(lib);
  EXPECT_EQ(c.sass, (std::vector<int>{80}));
  EXPECT_TRUE(c.ptx.empty());
  EXPECT_EQ(c.specific, (std::vector<std::string>{"compute_90a", "sm_100f", "sm_90a"}));
  EXPECT_EQ(c.arch_names(),
            (std::vector<std::string>{"sm_80", "sm_100f", "sm_90a", "compute_90a"}));
}

TEST(ImageCodeObjects, MagicOffAlignmentOrWithBadEntriesIgnored) {
  // The magic at an odd offset is no container; a container whose entry is implausible isn't.
  auto off = "x" + fatbin({{2, 80}});
  EXPECT_TRUE(scan_code_objects_in(off).empty());
  auto bad = fatbin({{7, 80}});
  EXPECT_TRUE(scan_code_objects_in(bad).empty());
  EXPECT_TRUE(scan_code_objects_in(std::string(100000, '\x50')).empty());
}

TEST(ImageCodeObjects, ContainerAcrossTheReadBoundary) {
  // The scanner reads 1 MiB at a time; a container straddling that boundary is still read.
  std::string lib((1 << 20) - 8, '\0');
  lib += fatbin({{2, 75}, {2, 120}});
  auto c = scan_code_objects_in(lib);
  EXPECT_EQ(c.sass, (std::vector<int>{75, 120}));
}

TEST(ImageCodeObjects, OffloadBundleTargets) {
  auto lib = padded(
                 "\x7f"
                 "ELF",
                 4096) +
             bundle({"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
                     "hipv4-amdgcn-amd-amdhsa--gfx942"});
  auto c = scan_code_objects_in(lib);
  EXPECT_EQ(c.gfx, (std::vector<std::string>{"gfx90a:xnack-", "gfx942"}));
  EXPECT_TRUE(c.sass.empty());
}

TEST(ImageCodeObjects, CompressedBundles) {
  auto inner = bundle({"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx1100"});
  auto z = scan_code_objects_in(padded("\x7f"
                                       "ELF",
                                       4096) +
                                ccob(inner, 0));
  EXPECT_EQ(z.gfx, (std::vector<std::string>{"gfx1100"}));
  EXPECT_EQ(z.unread_bundles, 0);
  // zstd (method 1), versions 2 and 3: decompressed as far as the inner bundle's header.
  for (int version : {2, 3}) {
    auto zs = scan_code_objects_in(padded("\x7f"
                                          "ELF",
                                          4096) +
                                   ccob(inner, 1, version));
    EXPECT_EQ(zs.gfx, (std::vector<std::string>{"gfx1100"})) << version;
    EXPECT_EQ(zs.unread_bundles, 0);
  }
  // zlib bytes labelled zstd, and zstd cut short before the bundle header: counted unread.
  auto wrong = scan_code_objects_in(padded("\x7f"
                                           "ELF",
                                           4096) +
                                    ccob(inner, 1, 2, zlib_bytes(inner)));
  EXPECT_TRUE(wrong.gfx.empty());
  EXPECT_EQ(wrong.unread_bundles, 1);
  auto cut = scan_code_objects_in(padded("\x7f"
                                         "ELF",
                                         4096) +
                                  ccob(inner, 1, 3, zstd_bytes(inner).substr(0, 6)));
  EXPECT_TRUE(cut.gfx.empty());
  EXPECT_EQ(cut.unread_bundles, 1);
}

Result<std::string> unzstd(const std::string& in, uint64_t max_out = uint64_t{1} << 30) {
  MemorySource src(in);
  ZstdSource z(src, max_out, "layer 1 (sha256:ab)");
  std::string out;
  char buf[1000];  // small reads: the decoder's buffered output is handed out over several
  for (;;) {
    auto r = z.read(buf, sizeof buf);
    if (!r) return r.error();
    if (*r == 0) return out;
    out.append(buf, *r);
  }
}

TEST(ImageZstd, FramesTruncationCorruptionAndBombs) {
  std::string a(300000, 'a'), b;
  for (int i = 0; i < 100000; ++i) b += std::to_string(i * 7919 % 100003);
  auto one = unzstd(zstd_bytes(a + b));
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(*one, a + b);
  // Several frames, as zstd:chunked layers are: one stream.
  auto two = unzstd(zstd_bytes(a) + zstd_bytes(b, 19));
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(*two, a + b);
  auto whole = zstd_bytes(b);
  auto cut = unzstd(whole.substr(0, whole.size() / 2));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "layer 1 (sha256:ab): truncated zstd stream");
  auto corrupt = whole;
  for (size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  auto bad = unzstd(corrupt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("layer 1 (sha256:ab): corrupt zstd stream ("),
            std::string::npos)
      << bad.error().message;
  // 8 MiB of zeros from a few hundred bytes, read with a 1 MiB limit.
  auto bomb = unzstd(zstd_bytes(std::string(8 << 20, '\0'), 19), 1 << 20);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.error().message.find("inflates beyond 1 MiB"), std::string::npos);
  // zstd:chunked ends in a skippable frame (its table of contents): passed over, not output.
  auto skippable = std::string("\x50\x2a\x4d\x18", 4) + le(5, 4) + "table";
  auto chunked = unzstd(zstd_bytes(a) + skippable + zstd_bytes(b) + skippable);
  ASSERT_TRUE(chunked.ok()) << chunked.error().message;
  EXPECT_EQ(*chunked, a + b);
}

TEST(ImageZstd, MalformedInput) {
  auto error_of = [](const std::string& in) {
    auto r = unzstd(in);
    return r.ok() ? std::string("decompressed ") + std::to_string(r->size()) + " bytes"
                  : r.error().message;
  };
  std::string text;
  for (int i = 0; i < 100000; ++i) text += std::to_string(i * 7919 % 100003) + " ";
  auto frame = zstd_bytes(text);  // several blocks
  // The frame header's size from its descriptor byte (RFC 8878 3.1.1.1): magic, descriptor,
  // window descriptor unless single-segment, dictionary id, content size.
  auto fhd = static_cast<uint8_t>(frame[4]);
  bool single = fhd & 0x20;
  size_t fcs[] = {single ? 1u : 0u, 2, 4, 8}, dict[] = {0, 1, 2, 4};
  size_t header = 5 + (single ? 0 : 1) + dict[fhd & 3] + fcs[fhd >> 6];
  // Not zstd at all (the magic wrong): the first read says so.
  EXPECT_EQ(error_of("PK\x03\x04 not a zstd frame"),
            "layer 1 (sha256:ab): corrupt zstd stream (Unknown frame descriptor)");
  EXPECT_EQ(error_of("\x28\xb5\x2f\xfc" + frame.substr(4)),
            "layer 1 (sha256:ab): corrupt zstd stream (Unknown frame descriptor)");
  // Cut inside the frame header, after the magic, and one byte short of the end.
  EXPECT_EQ(error_of(frame.substr(0, 4)), "layer 1 (sha256:ab): truncated zstd stream");
  EXPECT_EQ(error_of(frame.substr(0, 5)), "layer 1 (sha256:ab): truncated zstd stream");
  EXPECT_EQ(error_of(frame.substr(0, frame.size() - 1)),
            "layer 1 (sha256:ab): truncated zstd stream");
  // A complete frame, then a second one cut short, and then bytes that are no frame.
  EXPECT_EQ(error_of(frame + frame.substr(0, 10)), "layer 1 (sha256:ab): truncated zstd stream");
  EXPECT_EQ(error_of(frame + std::string(512, '\0')),
            "layer 1 (sha256:ab): corrupt zstd stream (Unknown frame descriptor)");
  // A block header claiming more than a block may hold.
  auto huge_block = frame.substr(0, header) + "\xfc\xff\xff" + frame.substr(header + 3);
  EXPECT_NE(error_of(huge_block).find("layer 1 (sha256:ab): corrupt zstd stream ("),
            std::string::npos)
      << error_of(huge_block);
  // A frame asking for a 256 MiB window (no single segment, window descriptor exponent 18),
  // then an empty last raw block: refused before any window is allocated.
  EXPECT_EQ(error_of(std::string("\x28\xb5\x2f\xfd\x00\x90\x01\x00\x00", 9)),
            "layer 1 (sha256:ab): a zstd frame asks for a window over 128 MiB (the limit anygpu "
            "decompresses with; `zstd --long` output)");
  // The same frame with a 128 MiB window is within the limit and holds nothing.
  EXPECT_EQ(error_of(std::string("\x28\xb5\x2f\xfd\x00\x88\x01\x00\x00", 9)),
            "decompressed 0 bytes");
  // A content checksum that does not match (frame made with one, last byte changed).
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  std::string sum(ZSTD_compressBound(text.size()), '\0');
  sum.resize(ZSTD_compress2(c, sum.data(), sum.size(), text.data(), text.size()));
  ZSTD_freeCCtx(c);
  ASSERT_EQ(unzstd(sum).value_or(""), text);
  sum.back() = static_cast<char>(sum.back() ^ 1);
  EXPECT_EQ(error_of(sum),
            "layer 1 (sha256:ab): corrupt zstd stream (Restored data doesn't match checksum)");
  // In memory (a CCOB's inner header): damaged or foreign data gives nothing.
  EXPECT_EQ(zstd_start(std::string("\x28\xb5\x2f\xfd\x00\x90\x01\x00\x00", 9), 100), "");
  EXPECT_EQ(zstd_start(frame.substr(0, 5), 100), "");
  EXPECT_EQ(zstd_start(frame.substr(0, frame.size() / 2), 10), text.substr(0, 10));
  EXPECT_EQ(zstd_start("not zstd at all", 100), "");
  EXPECT_EQ(zstd_start(zstd_bytes(std::string(300, 'a')), 100), std::string(100, 'a'));
}

// Docker keys its references by their familiar form (moby reference/store.go): the default
// registry and library/ dropped, :latest added; a digest reference is stored by digest alone.
TEST(DockerRef, FamiliarFormsAsDockerStoresThem) {
  struct Case {
    std::string in, name, key;
  };
  const std::string digest = "sha256:" + std::string(64, 'a');
  for (const auto& c : std::vector<Case>{
           {"ubuntu", "ubuntu", "ubuntu:latest"},
           {"ubuntu:22.04", "ubuntu", "ubuntu:22.04"},
           {"docker.io/library/ubuntu:22.04", "ubuntu", "ubuntu:22.04"},
           {"docker.io/pytorch/pytorch:2.5.1", "pytorch/pytorch", "pytorch/pytorch:2.5.1"},
           {"nvcr.io/nvidia/pytorch:24.05-py3", "nvcr.io/nvidia/pytorch",
            "nvcr.io/nvidia/pytorch:24.05-py3"},
           {"localhost:5000/x/y", "localhost:5000/x/y", "localhost:5000/x/y:latest"},
           {"ubuntu@" + digest, "ubuntu", "ubuntu@" + digest},
       }) {
    auto r = docker_familiar(c.in);
    ASSERT_TRUE(r) << c.in;
    EXPECT_EQ(r->name, c.name) << c.in;
    EXPECT_EQ(r->key, c.key) << c.in;
  }
  for (const std::string bad : {"", "ubuntu:", "/ubuntu", "a b", "ubuntu@sha256:12", "x\n"})
    EXPECT_FALSE(docker_familiar(bad)) << bad;
}

}  // namespace
}  // namespace anygpu::image
