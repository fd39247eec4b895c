// Forward-only byte streams an image is read through: a byte range of a file (a blob, or a
// member of an archive), a SHA-256 taken on the way (blobs are named by their digest), and gzip
// inflation and zstd decompression (layers are tar, tar+gzip or tar+zstd). Nothing is written
// anywhere; memory is a few buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"
#include "util/sha256.h"

namespace anygpu::image {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `n` bytes into `out`; 0 at the end of the stream.
  virtual Result<size_t> read(void* out, size_t n) = 0;
};

// Reads exactly `n` bytes; false at a clean end before the first byte; an error mid-way.
// `what` names the stream in the error ("layer 2 (sha256:…)").
Result<bool> read_exact(ByteSource& in, void* out, size_t n, const std::string& what);
// Reads and drops `n` bytes; an error when the stream ends first.
std::optional<Error> skip_exact(ByteSource& in, uint64_t n, const std::string& what);

// An open file, shared by the ranges read from it.
class OpenFile {
 public:
  static Result<std::shared_ptr<OpenFile>> open(const std::string& path);
  ~OpenFile();
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  OpenFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  int fd_;
  uint64_t size_;
  std::string path_;
};

// `length` bytes of `file` from `offset`.
class FileRange : public ByteSource {
 public:
  FileRange(std::shared_ptr<OpenFile> file, uint64_t offset, uint64_t length)
      : file_(std::move(file)), pos_(offset), end_(offset + length) {}
  Result<size_t> read(void* out, size_t n) override;
  // Moves forward without reading (the outer archive's member data is skipped, not read).
  void seek_forward(uint64_t n) { pos_ = n > end_ - pos_ ? end_ : pos_ + n; }
  uint64_t position() const { return pos_; }

 private:
  std::shared_ptr<OpenFile> file_;
  uint64_t pos_, end_;
};

// Passes `inner` through and hashes every byte read.
class HashingSource : public ByteSource {
 public:
  explicit HashingSource(ByteSource& inner) : inner_(inner) {}
  Result<size_t> read(void* out, size_t n) override;
  std::string hex() { return hash_.hex(); }
  uint64_t count() const { return count_; }

 private:
  ByteSource& inner_;
  Sha256 hash_;
  uint64_t count_ = 0;
};

// Inflates gzip (one or more concatenated members) from `inner`; at most `max_out` bytes come
// out (a decompression bomb ends there with an error). `what` names the stream in errors.
class GzipSource : public ByteSource {
 public:
  GzipSource(ByteSource& inner, uint64_t max_out, std::string what);
  ~GzipSource() override;
  Result<size_t> read(void* out, size_t n) override;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Decompresses zstd (one or more frames, as `zstd:chunked` layers are) from `inner`; at most
// `max_out` bytes come out, and a frame asking for a window over 128 MiB is refused, so memory
// stays bounded. `what` names the stream in errors.
class ZstdSource : public ByteSource {
 public:
  ZstdSource(ByteSource& inner, uint64_t max_out, std::string what);
  ~ZstdSource() override;
  Result<size_t> read(void* out, size_t n) override;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The start of a zstd stream in memory, decompressed into at most `max_out` bytes (a CCOB
// bundle's inner header); empty when it is not zstd or is damaged before any output.
std::string zstd_start(std::string_view in, size_t max_out);

// The compression a blob's first bytes show: gzip (1f 8b), zstd (28 b5 2f fd), else none.
enum class Compression { none, gzip, zstd };
Compression sniff_compression(const uint8_t* head, size_t size);

// A source that first replays `head` (bytes already read for sniffing), then `inner`.
class PrefixedSource : public ByteSource {
 public:
  PrefixedSource(std::string head, ByteSource& inner) : head_(std::move(head)), inner_(inner) {}
  Result<size_t> read(void* out, size_t n) override;

 private:
  std::string head_;
  size_t used_ = 0;
  ByteSource& inner_;
};

}  // namespace anygpu::image
