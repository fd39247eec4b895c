// An image kept by Docker's classic image store with the overlay2 graph driver (the store of
// `docker pull` unless the containerd image store is enabled): references in
// <data-root>/image/overlay2/repositories.json ({"Repositories": {familiar name: {familiar
// reference: "sha256:<id>"}}}, moby reference/store.go), the config at
// image/overlay2/imagedb/content/sha256/<id>, and each layer by its chain ID
// (ChainID(L0) = diff_id(L0), ChainID(Ln) = sha256(ChainID(Ln-1) + " " + diff_id(Ln)), the image
// spec's "Layer ChainID") in image/overlay2/layerdb/sha256/<chain>/{diff,cache-id}, its files
// unpacked in overlay2/<cache-id>/diff with overlay's own whiteouts, as containers-storage keeps
// them. Read without the daemon; nothing is written.
#pragma once

#include <optional>
#include <string>

#include "image/store_layer.h"

namespace anygpu::image {

// $ANYGPU_DOCKER_ROOT, else "data-root" of /etc/docker/daemon.json, else /var/lib/docker;
// bad_input when the variable names no directory.
Result<std::string> docker_data_root();

// The familiar form Docker keys its references by: "docker.io/library/" and "docker.io/"
// dropped, ":latest" added to a name without tag or digest ("ubuntu" -> ("ubuntu",
// "ubuntu:latest")). nullopt for text that is no reference.
struct DockerRef {
  std::string name, key;
};
std::optional<DockerRef> docker_familiar(const std::string& ref);

// The image `ref` names (a reference, an id or its first 12+ hex digits) in the store at
// `data_root`; nullopt when the store has none (or there is no store).
Result<std::optional<StoreImage>> find_docker_image(const std::string& ref,
                                                    const std::string& data_root);

}  // namespace anygpu::image
