#include "image/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "util/strings.h"

namespace anygpu::image {

Result<bool> read_exact(ByteSource& in, void* out, size_t n, const std::string& what) {
  size_t got = 0;
  auto* p = static_cast<char*>(out);
  while (got < n) {
    auto r = in.read(p + got, n - got);
    if (!r) return r.error();
    if (*r == 0) {
      if (got == 0) return false;
      return bad_input(
          cat({what, ": truncated (ends inside a ", std::to_string(n), "-byte read)"}));
    }
    got += *r;
  }
  return true;
}

std::optional<Error> skip_exact(ByteSource& in, uint64_t n, const std::string& what) {
  char buf[65536];
  while (n > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(n, sizeof buf));
    auto r = in.read(buf, want);
    if (!r) return r.error();
    if (*r == 0)
      return bad_input(cat({what, ": truncated (", std::to_string(n), " bytes missing)"}));
    n -= *r;
  }
  return std::nullopt;
}

Result<std::shared_ptr<OpenFile>> OpenFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int e = errno;
    Error err = bad_input(cat({path, ": ", std::strerror(e)}));
    err.sys_errno = e;
    return err;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return bad_input(cat({path, ": not a regular file"}));
  }
  return std::shared_ptr<OpenFile>(new OpenFile(fd, static_cast<uint64_t>(st.st_size), path));
}

OpenFile::~OpenFile() {
  ::close(fd_);
}

Result<size_t> FileRange::read(void* out, size_t n) {
  n = static_cast<size_t>(std::min<uint64_t>(n, end_ - pos_));
  if (n == 0) return size_t{0};
  for (;;) {
    ssize_t r = ::pread(file_->fd(), out, n, static_cast<off_t>(pos_));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return bad_input(cat({file_->path(), ": ", std::strerror(errno)}));
    if (r == 0)
      return bad_input(cat({file_->path(), ": ends at ", std::to_string(pos_),
                            " bytes, inside a member that claims more"}));
    pos_ += static_cast<uint64_t>(r);
    return static_cast<size_t>(r);
  }
}

Result<size_t> HashingSource::read(void* out, size_t n) {
  auto r = inner_.read(out, n);
  if (r && *r > 0) {
    hash_.update(out, *r);
    count_ += *r;
  }
  return r;
}

struct GzipSource::State {
  ByteSource& inner;
  uint64_t max_out;
  std::string what;
  z_stream z{};
  std::vector<unsigned char> in = std::vector<unsigned char>(65536);
  uint64_t produced = 0;
  bool inner_done = false;
  bool ended = false;  // the last member's end was reached and no input follows
  State(ByteSource& i, uint64_t m, std::string w) : inner(i), max_out(m), what(std::move(w)) {}
};

GzipSource::GzipSource(ByteSource& inner, uint64_t max_out, std::string what)
    : s_(std::make_unique<State>(inner, max_out, std::move(what))) {
  inflateInit2(&s_->z, 16 + MAX_WBITS);  // gzip wrapper only
}

GzipSource::~GzipSource() {
  inflateEnd(&s_->z);
}

Result<size_t> GzipSource::read(void* out, size_t n) {
  auto& s = *s_;
  if (s.ended || n == 0) return size_t{0};
  s.z.next_out = static_cast<Bytef*>(out);
  s.z.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
  while (s.z.avail_out == static_cast<uInt>(std::min<size_t>(n, 1u << 30))) {
    if (s.z.avail_in == 0 && !s.inner_done) {
      auto r = s.inner.read(s.in.data(), s.in.size());
      if (!r) return r.error();
      if (*r == 0) s.inner_done = true;
      s.z.next_in = s.in.data();
      s.z.avail_in = static_cast<uInt>(*r);
    }
    int rc = inflate(&s.z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (pigz, concatenated streams); padding zeros end it.
      if (s.z.avail_in == 0 && !s.inner_done) {
        auto r = s.inner.read(s.in.data(), s.in.size());
        if (!r) return r.error();
        s.z.next_in = s.in.data();
        s.z.avail_in = static_cast<uInt>(*r);
        if (*r == 0) s.inner_done = true;
      }
      if (s.z.avail_in == 0 || s.z.next_in[0] != 0x1f) {
        s.ended = true;
        break;
      }
      inflateReset(&s.z);
      continue;
    }
    if (rc == Z_BUF_ERROR && s.inner_done && s.z.avail_in == 0)
      return bad_input(cat({s.what, ": truncated gzip stream"}));
    if (rc != Z_OK && rc != Z_BUF_ERROR)
      return bad_input(
          cat({s.what, ": corrupt gzip stream (", s.z.msg ? s.z.msg : "zlib error", ")"}));
  }
  size_t got = static_cast<size_t>(reinterpret_cast<char*>(s.z.next_out) - static_cast<char*>(out));
  s.produced += got;
  if (s.produced > s.max_out)
    return bad_input(cat({s.what, ": inflates beyond ", std::to_string(s.max_out >> 20),
                          " MiB (a decompression bomb, or an image larger than anygpu reads)"}));
  return got;
}

Compression sniff_compression(const uint8_t* head, size_t size) {
  if (size >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Compression::gzip;
  if (size >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd)
    return Compression::zstd;
  return Compression::none;
}

Result<size_t> PrefixedSource::read(void* out, size_t n) {
  if (used_ < head_.size()) {
    size_t take = std::min(n, head_.size() - used_);
    std::memcpy(out, head_.data() + used_, take);
    used_ += take;
    return take;
  }
  return inner_.read(out, n);
}

namespace {

// Frames may not ask for more than 2^27 bytes of window (zstd's own default limit; `zstd
// --long` archives above it are refused rather than allocated).
constexpr int kZstdWindowLogMax = 27;

// A decoder error in words; a window over the limit is said as such, not as corruption.
std::string zstd_error_text(const std::string& what, size_t rc) {
  if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge)
    return cat({what, ": a zstd frame asks for a window over ",
                std::to_string((uint64_t{1} << kZstdWindowLogMax) >> 20),
                " MiB (the limit anygpu decompresses with; `zstd --long` output)"});
  return cat({what, ": corrupt zstd stream (", ZSTD_getErrorName(rc), ")"});
}

}  // namespace

struct ZstdSource::State {
  ByteSource& inner;
  uint64_t max_out;
  std::string what;
  ZSTD_DStream* z = ZSTD_createDStream();
  std::vector<char> in = std::vector<char>(ZSTD_DStreamInSize());
  ZSTD_inBuffer input{nullptr, 0, 0};
  uint64_t produced = 0;
  bool inner_done = false;
  bool frame_done = true;  // between frames: the end of input there is a clean end
  bool setup_failed = false;
  State(ByteSource& i, uint64_t m, std::string w) : inner(i), max_out(m), what(std::move(w)) {
    input.src = in.data();
    setup_failed =
        !z || ZSTD_isError(ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, kZstdWindowLogMax));
  }
  ~State() { ZSTD_freeDStream(z); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
};

ZstdSource::ZstdSource(ByteSource& inner, uint64_t max_out, std::string what)
    : s_(std::make_unique<State>(inner, max_out, std::move(what))) {}

ZstdSource::~ZstdSource() = default;

Result<size_t> ZstdSource::read(void* out, size_t n) {
  auto& s = *s_;
  if (s.setup_failed) return bad_input(cat({s.what, ": the zstd decoder could not be set up"}));
  if (n == 0) return size_t{0};
  ZSTD_outBuffer output{out, n, 0};
  while (output.pos == 0) {
    if (s.input.pos == s.input.size && !s.inner_done) {
      auto r = s.inner.read(s.in.data(), s.in.size());
      if (!r) return r.error();
      s.input = {s.in.data(), *r, 0};
      s.inner_done = *r == 0;
    }
    bool drained = s.input.pos == s.input.size && s.inner_done;
    if (drained && s.frame_done) break;
    // With no input left this still flushes what the decoder holds.
    size_t rc = ZSTD_decompressStream(s.z, &output, &s.input);
    if (ZSTD_isError(rc)) return bad_input(zstd_error_text(s.what, rc));
    s.frame_done = rc == 0;  // a frame ended; further bytes, if any, start another
    if (drained && output.pos == 0 && !s.frame_done)
      return bad_input(cat({s.what, ": truncated zstd stream"}));
  }
  s.produced += output.pos;
  if (s.produced > s.max_out)
    return bad_input(cat({s.what, ": inflates beyond ", std::to_string(s.max_out >> 20),
                          " MiB (a decompression bomb, or an image larger than anygpu reads)"}));
  return output.pos;
}

std::string zstd_start(std::string_view in, size_t max_out) {
  std::string out(max_out, '\0');
  ZSTD_DCtx* z = ZSTD_createDCtx();
  if (!z) return "";
  ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, kZstdWindowLogMax);
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  ZSTD_outBuffer output{out.data(), out.size(), 0};
  while (output.pos < output.size && input.pos < input.size) {
    size_t rc = ZSTD_decompressStream(z, &output, &input);
    if (ZSTD_isError(rc)) {
      if (output.pos == 0) out.clear();
      break;
    }
    if (rc == 0 && input.pos == input.size) break;
  }
  ZSTD_freeDCtx(z);
  out.resize(std::min(out.size(), output.pos));
  return out;
}

}  // namespace anygpu::image
