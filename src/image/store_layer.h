// An image kept by a container store on this machine: containers-storage (podman, buildah,
// CRI-O) with the overlay driver. Its images are listed in <graphroot>/overlay-images/
// images.json, the config is that image's big-data item `sha256:<id>` (stored under "=" +
// base64 of the key), its layers chain from the image's top layer through
// overlay-layers/layers.json `parent`s, and each layer's files are unpacked in
// overlay/<layer id>/diff/ with overlay's own whiteouts: a character device 0/0 deletes, the
// xattr trusted.overlay.opaque (user.overlay.opaque rootless) = "y" makes a directory opaque.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "image/tar_reader.h"

namespace anygpu::image {

struct StoreImage {
  std::string id;                          // hex of the config digest
  std::string ref;                         // the name it was found by
  std::string config;                      // the config's bytes (checked against the id)
  std::vector<std::string> layer_dirs;     // overlay/<id>/diff, bottom first
  std::vector<std::string> layer_digests;  // "sha256:…" diff digests, bottom first
};

// The graph root: `graphroot` of $CONTAINERS_STORAGE_CONF or /etc/containers/storage.conf,
// else /var/lib/containers/storage for root and ~/.local/share/containers/storage otherwise.
std::string containers_storage_root();

// The image named `ref` ("localhost/x:tag", "x:tag", "x" = "x:latest", an id or its first 12+
// hex digits) in the store at `graphroot`; nullopt when the store has no such image.
Result<std::optional<StoreImage>> find_store_image(const std::string& ref,
                                                   const std::string& graphroot);

// An unpacked layer directory as a layer's members (no symbolic link is followed).
std::unique_ptr<LayerMembers> open_store_layer(const std::string& dir, std::string what);

// The JSON files of a store (images.json, repositories.json, a config) are read whole, up to this.
inline constexpr size_t kMaxStoreJson = size_t{64} << 20;
// A store file read whole (bad_input past kMaxStoreJson), and the same parsed as JSON.
Result<std::string> read_store_file(const std::string& path);
Result<nlohmann::json> read_store_json(const std::string& path);

// RFC 4648 base64 with padding (Go's base64.StdEncoding).
std::string base64_encode(std::string_view bytes);

}  // namespace anygpu::image
