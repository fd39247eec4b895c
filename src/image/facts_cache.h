// What an image's layers said (image_read.h's ImageContents: kept files, code objects, compat
// notes), kept by image id so that a second `image check` or `run --container` of the same
// image reads its config and no layer. The id is the config's digest, and the config names
// every layer's diff_id: the same id is the same content, so what is kept never goes stale;
// the verdict is judged afresh against the host of each run (a changed host, driver or wheel
// table is never answered from the cache).
//
// - Where: $ANYGPU_CACHE_DIR/images, else /var/cache/anygpu/images as root, else
//   $XDG_CACHE_HOME/anygpu/images, else ~/.cache/anygpu/images; written through the confined
//   write path (host/confined_writer.h: no link beneath the existing directory named first is
//   followed, files appear whole, mode 0600); directories are made on the first store only.
// - Bounded: at most kMaxEntries entries of at most kMaxEntryBytes each; the oldest go first.
// - Never trusted blindly: an entry is parsed strictly (every field, type and bound, and its id
//   must be the one asked for); one that fails is set aside as NAME.corrupt-<unix time> with a
//   warning and the image is read from its layers. An entry of another reader version is
//   replaced without a word.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/confined_writer.h"
#include "image/image_read.h"

namespace anygpu::image {

inline constexpr size_t kMaxCacheEntries = 128;
inline constexpr size_t kMaxCacheEntryBytes = size_t{8} << 20;

class FactsCache {
 public:
  // The cache directory as the environment names it: an error when ANYGPU_CACHE_DIR names no
  // directory (refused as the environment table refuses it); nullopt (and why, in `why`) when
  // the default cannot be used (no HOME, a directory that cannot be created).
  static Result<std::optional<FactsCache>> open(std::string* why);
  // A cache in `dir`/images (tests, and ANYGPU_CACHE_DIR).
  static Result<FactsCache> at(const std::string& dir);

  // The facts kept for `id` ("sha256:<64 hex>"); nullopt when none are, or the entry is stale
  // or corrupt (set aside; a warning is added to `warnings`).
  std::optional<ImageContents> load(const std::string& id,
                                    std::vector<std::string>& warnings) const;
  // Keeps `image`'s facts under its id; a failure is a warning, never an error.
  void store(const ImageContents& image, std::vector<std::string>& warnings) const;

  std::string path() const;  // the entries' directory

 private:
  FactsCache(ConfinedDir dir, std::string entries)
      : dir_(std::move(dir)), entries_(std::move(entries)) {}
  void evict(std::vector<std::string>& warnings) const;

  ConfinedDir dir_;
  std::string entries_;  // relative to dir_: "images", "anygpu/images"
};

// For -v: "image sha256:…: from the cache DIR, no layer read" or "…: 3 of 3 layer(s) read".
std::string read_note(const ImageContents& image, const FactsCache* cache);

// The entry's file name for `id`: "sha256-<hex>.json"; empty when `id` is not a SHA-256 digest.
std::string cache_entry_name(const std::string& id);
// The JSON kept for `image` and its strict reading back (tests and fuzzing).
std::string facts_to_json(const ImageContents& image);
Result<ImageContents> facts_from_json(std::string_view text, const std::string& id);

}  // namespace anygpu::image
