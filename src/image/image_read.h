// An image's final filesystem, as far as judging it needs: layers streamed bottom-up once each,
// with whiteouts applied (`.wh.NAME` deletes, `.wh..wh..opq` hides what lower layers hold in
// its directory), keeping only the members that say which frameworks and GPU code the image
// carries: torch/version.py, torch_npu/version.py, dist-info METADATA heads, conda-meta record
// names, ROCm and CANN version files, the code objects of every shared library and the
// forward-compatibility note of cuda-compat libraries (compat_note.h). Each layer's
// blob and uncompressed tar are checked against their digests. Nothing is extracted or written.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "image/code_objects.h"
#include "image/compat_note.h"
#include "image/image_store.h"

namespace anygpu::image {

// The bytes one layer may inflate to (a decompression bomb stops here).
inline constexpr uint64_t kMaxLayerBytes = uint64_t{256} << 30;
// The text kept of one small file (version.py, a METADATA head), and of all together.
inline constexpr size_t kMaxKeptText = size_t{64} << 10;
inline constexpr size_t kMaxKeptTotal = size_t{64} << 20;

struct ImageFile {
  size_t layer = 0;  // index into ImageContents::layers
  std::string text;  // the kept head of a small file; empty for a library
  bool library = false;
  CodeObjects objects;               // a shared library's GPU code
  std::optional<CudaCompat> compat;  // a cuda-compat libcuda.so and its note
};

struct ImageContents {
  std::string source;  // the path given
  std::string id;      // "sha256:…" of the config
  std::string ref;
  std::string architecture, os;
  std::vector<std::string> env;            // config.Env
  std::vector<std::string> layers;         // "sha256:…" per layer, bottom first
  std::map<std::string, ImageFile> files;  // by path in the final filesystem, no leading '/'
  // How it was read: from the facts cache (facts_cache.h, no layer read), or layer by layer.
  bool from_cache = false;
  size_t layers_read = 0;
  std::vector<std::string> warnings;  // the cache's: an entry set aside, one not kept

  // The value of config.Env's NAME=value; nullopt when unset.
  std::optional<std::string> env_value(std::string_view name) const;
};

class FactsCache;

// Reads the archive or layout at `path` (image_store.h). With a cache, the config is read and
// its id looked up first: kept facts stand for the layers, which are then not read; facts read
// from layers are kept.
Result<ImageContents> read_image(const std::string& path, const FactsCache* cache = nullptr);
// The image containers-storage (store_layer.h), else Docker's store (docker_store.h), keeps
// under `ref`, never a file of that name; nullopt when neither has it (an engine would pull it).
Result<std::optional<ImageContents>> read_stored_image(const std::string& ref,
                                                       const FactsCache* cache = nullptr);
// "containers-storage (GRAPHROOT) and the Docker store (DATA-ROOT)", for messages.
std::string stores_searched();

// Which members are kept: a small file's head, a library's code objects, a cuda-compat
// library's note, or nothing.
enum class Keep { nothing, text, library, compat };
Keep member_interest(std::string_view path);

}  // namespace anygpu::image
