// A streaming reader of tar archives as image layers and `docker save` archives are written:
// ustar (name + prefix), GNU long names ('L', 'K') and POSIX pax records (path, linkpath, size).
// Every member path is normalised and refused when absolute or climbing with `..`; every
// header's checksum and claimed size are checked. Data is read or skipped, never stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "image/byte_source.h"

namespace anygpu::image {

// A member claiming more is refused: no file in a real image comes near it.
inline constexpr uint64_t kMaxMemberBytes = uint64_t{64} << 30;
// A pax record or long name larger than this is refused.
inline constexpr uint64_t kMaxMetaBytes = uint64_t{1} << 20;

struct TarMember {
  enum class Kind { file, dir, symlink, hardlink, other };
  Kind kind = Kind::other;
  std::string path;  // normalised: no leading "./" or "/", no "." or ".." parts; "" = the root
  std::string link;  // symlink or hard-link target, as written
  uint64_t size = 0;
};

// A layer's members one after another, whatever holds them: a tar stream, or the unpacked
// directory a container store keeps (image/store_layer.h).
class LayerMembers {
 public:
  virtual ~LayerMembers() = default;
  // The next member (the rest of the current one is skipped); nullopt at the end. Whiteouts
  // come as members named `.wh.NAME` and `.wh..wh..opq`, however the layer records them.
  virtual Result<std::optional<TarMember>> next() = 0;
  // Up to `n` bytes of the current member's data; 0 at its end.
  virtual Result<size_t> read(void* out, size_t n) = 0;
  virtual const std::string& what() const = 0;
};

class TarReader : public LayerMembers {
 public:
  // `what` names the archive in errors ("layer 3 (sha256:…)").
  TarReader(ByteSource& in, std::string what) : in_(in), what_(std::move(what)) {}
  Result<std::optional<TarMember>> next() override;
  Result<size_t> read(void* out, size_t n) override;
  // Bytes consumed from the source so far (the outer archive's member offsets).
  uint64_t consumed() const { return consumed_; }
  // The bytes of the current member left unread; the caller may move the source itself past
  // them (a FileRange seek) and then call skipped_externally().
  uint64_t remaining() const { return remaining_ + padding_; }
  void skipped_externally() { consumed_ += remaining_ + padding_, remaining_ = padding_ = 0; }
  const std::string& what() const override { return what_; }

 private:
  Result<bool> block(char* out);
  Result<std::string> read_meta(uint64_t size);
  std::optional<Error> finish_member();

  ByteSource& in_;
  std::string what_;
  uint64_t consumed_ = 0;
  uint64_t remaining_ = 0;
  uint64_t padding_ = 0;
  bool ended_ = false;
};

// The normalised form of a member path; an error when it is absolute or leaves the root.
Result<std::string> normalize_member_path(std::string_view raw, const std::string& what);
// Whether a symlink at `path` pointing to `target` stays inside the root when resolved
// lexically from its directory (absolute targets are resolved from the image's root).
bool link_stays_inside(std::string_view path, std::string_view target);

}  // namespace anygpu::image
