// Where an image's files are, and which of them make it: a directory (OCI layout) or a tar
// archive of one (`podman save --format oci-archive`), or a `docker save`/`podman save` archive
// (manifest.json). The plan names the config and the layers in stack order, each with the
// digests it must match; nothing is read beyond the index, the manifest and the config.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "image/byte_source.h"

namespace anygpu::image {

// The bytes of a manifest, index or config read whole are capped here.
inline constexpr size_t kMaxJsonBytes = size_t{16} << 20;

class ImageStore {
 public:
  // A directory or a tar archive; anything else is bad input.
  static Result<ImageStore> open(const std::string& path);
  bool has(const std::string& name) const;
  // A member's bytes as a stream, and its size.
  Result<std::unique_ptr<FileRange>> open_member(const std::string& name, uint64_t* size) const;
  Result<std::string> read_small(const std::string& name) const;
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    uint64_t offset = 0, size = 0;
  };
  std::string path_;
  bool is_dir_ = false;
  std::shared_ptr<OpenFile> archive_;
  std::map<std::string, Entry> index_;  // the archive's regular members
};

struct LayerPlan {
  std::string member;                   // where its blob is in the store
  std::string digest;                   // "sha256:…": how the layer is named in findings
  std::optional<std::string> blob_sha;  // hex the blob's bytes must hash to
  std::optional<std::string> diff_sha;  // hex the uncompressed tar must hash to (config diff_ids)
};

struct ImagePlan {
  std::string id;   // "sha256:<config digest>"
  std::string ref;  // a tag the archive records ("" when none)
  nlohmann::json config;
  std::vector<LayerPlan> layers;  // bottom first
};

// Reads the index or manifest and the config (checking the config's digest).
Result<ImagePlan> plan_image(const ImageStore& store);

}  // namespace anygpu::image
