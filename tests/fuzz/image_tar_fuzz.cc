// The tar reader behind image layers and save archives, with gzip or zstd sniffed as for a
// layer: any bytes end in members or a bad_input error naming the layer; every member path is
// normalised (relative, no empty, "." or ".." parts), every size within the bound, and a read
// is deterministic. Decompression is capped, so a bomb ends in an error, not in memory.
#include "fuzz_check.h"
#include "image/byte_source.h"
#include "image/code_objects.h"
#include "image/tar_reader.h"

using namespace anygpu;
using namespace anygpu::image;

namespace {

std::string read_all(std::string_view bytes) {
  MemorySource raw(bytes);
  auto kind = sniff_compression(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  GzipSource gz(raw, uint64_t{16} << 20, "fuzz layer");
  ZstdSource zs(raw, uint64_t{16} << 20, "fuzz layer");
  ByteSource& in = kind == Compression::gzip   ? static_cast<ByteSource&>(gz)
                   : kind == Compression::zstd ? static_cast<ByteSource&>(zs)
                                               : raw;
  TarReader tar(in, "fuzz layer");
  std::string out;
  for (int i = 0; i < 10000; ++i) {
    auto m = tar.next();
    if (!m) {
      FUZZ_CHECK(m.error().kind == ErrorKind::bad_input);
      FUZZ_CHECK(m.error().message.rfind("fuzz layer", 0) == 0);
      return out + "!" + m.error().message;
    }
    if (!*m) return out;
    const auto& p = (*m)->path;
    FUZZ_CHECK(p.empty() || (p.front() != '/' && p.back() != '/'));
    FUZZ_CHECK(p.find("//") == std::string::npos);
    FUZZ_CHECK(("/" + p + "/").find("/../") == std::string::npos);
    FUZZ_CHECK(("/" + p + "/").find("/./") == std::string::npos);
    FUZZ_CHECK((*m)->size <= kMaxMemberBytes);
    if ((*m)->kind == TarMember::Kind::symlink) FUZZ_CHECK(link_stays_inside(p, (*m)->link));
    // Read a little of each member, leave the rest to next()'s skipping.
    char buf[64];
    auto r = tar.read(buf, sizeof buf);
    if (!r) return out + "!" + r.error().message;
    out += p + ";";
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = fuzz::as_text(data, size);
  auto first = read_all(bytes);
  FUZZ_CHECK(first == read_all(bytes));
  return 0;
}
