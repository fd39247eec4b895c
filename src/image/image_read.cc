#include "image/image_read.h"

#include <set>

#include <sys/stat.h>

#include "image/docker_store.h"
#include "image/facts_cache.h"
#include "image/store_layer.h"
#include "image/tar_reader.h"
#include "util/strings.h"

namespace anygpu::image {

namespace {

std::string_view basename_of(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos ? p : p.substr(s + 1);
}

std::string parent_of(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos ? std::string() : std::string(p.substr(0, s));
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool is_under(std::string_view path, std::string_view dir) {
  if (dir.empty()) return true;
  return path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/';
}

bool is_shared_library(std::string_view base) {
  return ends_with(base, ".so") || base.find(".so.") != std::string_view::npos;
}

// What one layer changes, gathered while it streams and applied when it ends.
struct LayerChanges {
  std::map<std::string, ImageFile> added;
  std::set<std::string> deleted;   // .wh.NAME
  std::set<std::string> opaque;    // directories with .wh..wh..opq
  std::set<std::string> non_dirs;  // every non-directory member: replaces what was below
  std::set<std::string> dirs;      // every directory member: replaces a file there
};

void apply_changes(std::map<std::string, ImageFile>& files, LayerChanges& c) {
  for (auto it = files.begin(); it != files.end();) {
    const auto& p = it->first;
    bool gone = c.deleted.count(p) || c.non_dirs.count(p) || c.dirs.count(p);
    for (const auto& d : c.opaque) gone = gone || is_under(p, d);
    for (const auto& d : c.deleted) gone = gone || is_under(p, d);
    // A non-directory of this layer at one of its ancestors replaces the directory.
    for (auto a = parent_of(p); !gone && !a.empty(); a = parent_of(a)) gone = c.non_dirs.count(a);
    it = gone ? files.erase(it) : std::next(it);
  }
  for (auto& [p, f] : c.added) files[p] = std::move(f);
}

struct Budget {
  size_t text = 0;
};

Result<std::string> read_head(LayerMembers& tar, uint64_t size, Budget& budget) {
  size_t want = static_cast<size_t>(std::min<uint64_t>(size, kMaxKeptText));
  if (budget.text + want > kMaxKeptTotal)
    return bad_input(cat({tar.what(), ": more than ", std::to_string(kMaxKeptTotal >> 20),
                          " MiB of package metadata"}));
  std::string text(want, '\0');
  size_t got = 0;
  while (got < want) {
    auto r = tar.read(text.data() + got, want - got);
    if (!r) return r.error();
    if (*r == 0) break;
    got += *r;
  }
  text.resize(got);
  budget.text += got;
  return text;
}

// The current member's bytes as a source (the code-object scanner reads them to the end).
class MemberSource : public ByteSource {
 public:
  explicit MemberSource(LayerMembers& tar) : tar_(tar) {}
  Result<size_t> read(void* out, size_t n) override { return tar_.read(out, n); }

 private:
  LayerMembers& tar_;
};

// A cuda-compat library, read whole (bounded) for its note. A note that cannot be read is
// recorded as such: the judge says it cannot tell, the rest of the image is still read.
Result<CudaCompat> read_compat(LayerMembers& tar, const TarMember& m) {
  CudaCompat out;
  out.driver_version = compat_driver_version(m.path).value_or("");
  if (m.size > kMaxCompatLibraryBytes) {
    out.unread = cat({"it is ", std::to_string(m.size >> 20), " MiB, more than the ",
                      std::to_string(kMaxCompatLibraryBytes >> 20), " MiB anygpu reads"});
    return out;
  }
  std::string bytes(static_cast<size_t>(m.size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    auto r = tar.read(bytes.data() + got, bytes.size() - got);
    if (!r) return r.error();
    if (*r == 0) break;
    got += *r;
  }
  bytes.resize(got);
  auto note = read_compat_note(bytes);
  if (note)
    out.note = std::move(*note);
  else
    out.unread = note.error().message;
  return out;
}

std::optional<Error> walk_layer(LayerMembers& tar, size_t layer, LayerChanges& c, Budget& budget) {
  for (;;) {
    auto next = tar.next();
    if (!next) return next.error();
    if (!*next) return std::nullopt;
    auto& m = **next;
    auto base = basename_of(m.path);
    auto dir = parent_of(m.path);
    if (base == ".wh..wh..opq") {
      c.opaque.insert(dir);
      continue;
    }
    if (base.rfind(".wh..wh.", 0) == 0) continue;  // aufs bookkeeping, not a deletion
    if (base.rfind(".wh.", 0) == 0) {
      auto victim = dir.empty() ? std::string(base.substr(4)) : cat({dir, "/", base.substr(4)});
      c.deleted.insert(victim);
      continue;
    }
    (m.kind == TarMember::Kind::dir ? c.dirs : c.non_dirs).insert(m.path);
    c.added.erase(m.path);
    if (m.kind == TarMember::Kind::hardlink) {
      auto it = c.added.find(m.link);
      if (it != c.added.end()) c.added[m.path] = it->second;
      continue;
    }
    if (m.kind != TarMember::Kind::file) continue;
    auto keep = member_interest(m.path);
    if (keep == Keep::text) {
      auto text = read_head(tar, m.size, budget);
      if (!text) return text.error();
      c.added[m.path] = ImageFile{layer, std::move(*text), false, {}, std::nullopt};
    } else if (keep == Keep::compat) {
      auto compat = read_compat(tar, m);
      if (!compat) return compat.error();
      c.added[m.path] = ImageFile{layer, "", false, {}, std::move(*compat)};
    } else if (keep == Keep::library && m.size >= 4) {
      MemberSource src(tar);
      char magic[4];
      auto r = read_exact(src, magic, 4, cat({tar.what(), ": ", m.path}));
      if (!r) return r.error();
      if (std::string_view(magic, 4) != std::string_view("\x7f"
                                                         "ELF",
                                                         4))
        continue;
      // The scanner counts offsets from the file's start: fat binaries sit 8-aligned.
      PrefixedSource whole(std::string(magic, 4), src);
      auto objects = scan_code_objects(whole);
      if (!objects) return objects.error();
      if (!objects->empty())
        c.added[m.path] = ImageFile{layer, "", true, std::move(*objects), std::nullopt};
    }
  }
}

// Streams one layer: blob digest, decompression, tar digest, members.
std::optional<Error> read_layer(const ImageStore& store, const LayerPlan& plan, size_t index,
                                LayerChanges& changes, Budget& budget) {
  auto what = cat({"layer ", std::to_string(index + 1), " (", plan.digest, ")"});
  uint64_t size = 0;
  auto raw = store.open_member(plan.member, &size);
  if (!raw) return raw.error();
  HashingSource blob(**raw);
  std::string head(4, '\0');
  size_t got = 0;
  while (got < head.size()) {
    auto r = blob.read(head.data() + got, head.size() - got);
    if (!r) return r.error();
    if (*r == 0) break;
    got += *r;
  }
  head.resize(got);
  auto kind = sniff_compression(reinterpret_cast<const uint8_t*>(head.data()), head.size());
  PrefixedSource stream(head, blob);
  std::unique_ptr<ByteSource> inflated;
  if (kind == Compression::gzip)
    inflated = std::make_unique<GzipSource>(stream, kMaxLayerBytes, what);
  else if (kind == Compression::zstd)
    inflated = std::make_unique<ZstdSource>(stream, kMaxLayerBytes, what);
  ByteSource& plain = inflated ? *inflated : stream;
  HashingSource diff(plain);
  TarReader tar(diff, what);
  if (auto e = walk_layer(tar, index, changes, budget)) return *e;
  // The tar's end blocks and any padding belong to the digests too.
  char sink[65536];
  for (;;) {
    auto r = diff.read(sink, sizeof sink);
    if (!r) return r.error();
    if (*r == 0) break;
  }
  for (;;) {  // a compressed stream may end before its blob does (trailing bytes)
    auto r = blob.read(sink, sizeof sink);
    if (!r) return r.error();
    if (*r == 0) break;
  }
  auto diff_hex = diff.hex();
  auto blob_hex = inflated ? blob.hex() : diff_hex;
  if (plan.blob_sha && blob_hex != *plan.blob_sha)
    return bad_input(cat({what, ": blob ", plan.member, " has digest sha256:", blob_hex,
                          ", not the sha256:", *plan.blob_sha, " it is named by"}));
  if (plan.diff_sha && diff_hex != *plan.diff_sha)
    return bad_input(cat({what, ": uncompressed content has digest sha256:", diff_hex,
                          ", not the config's diff_id sha256:", *plan.diff_sha}));
  return std::nullopt;
}

std::string config_string(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void read_config(const nlohmann::json& config, ImageContents& out) {
  out.architecture = config_string(config, "architecture");
  out.os = config_string(config, "os");
  auto cfg = config.find("config");
  if (cfg == config.end() || !cfg->is_object()) return;
  auto env = cfg->find("Env");
  if (env != cfg->end() && env->is_array())
    for (const auto& e : *env)
      if (e.is_string()) out.env.push_back(e.get<std::string>());
}

}  // namespace

Keep member_interest(std::string_view path) {
  auto base = basename_of(path);
  if (path == "torch/version.py" || ends_with(path, "/torch/version.py") ||
      path == "torch_npu/version.py" || ends_with(path, "/torch_npu/version.py") ||
      (base == "METADATA" && ends_with(parent_of(path), ".dist-info")) ||
      (ends_with(base, ".json") && basename_of(parent_of(path)) == "conda-meta") ||
      base == "ascend_toolkit_install.info" || path == "opt/rocm/.info/version")
    return Keep::text;
  if (is_compat_library(path)) return Keep::compat;
  if (is_shared_library(base)) return Keep::library;
  return Keep::nothing;
}

std::optional<std::string> ImageContents::env_value(std::string_view name) const {
  for (const auto& e : env)
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return std::nullopt;
}

namespace {

// An image of the local containers-storage: its layers are directories, already unpacked (and
// not checked against their digests: that would mean packing them again).
// The facts `cache` keeps for `id`, with the source and reference of this reading.
// Layers are named as this reading names them (an OCI layout by its blobs' digests, a save
// archive by diff_id): the same image, kept from another form, is reported in this one's names.
std::optional<ImageContents> cached(const FactsCache* cache, const std::string& id,
                                    const std::string& source, const std::string& ref,
                                    const std::vector<std::string>& layers,
                                    std::vector<std::string>& warnings) {
  if (!cache) return std::nullopt;
  auto kept = cache->load(id, warnings);
  if (!kept) return std::nullopt;
  if (kept->layers.size() != layers.size()) {
    warnings.push_back(cat({"image cache entry for ", id, " lists ",
                            std::to_string(kept->layers.size()), " layers, the image has ",
                            std::to_string(layers.size()), "; not trusted, the layers are read"}));
    return std::nullopt;
  }
  kept->layers = layers;
  kept->source = source;
  kept->ref = ref;
  kept->from_cache = true;
  kept->warnings = warnings;
  return kept;
}

void keep(const FactsCache* cache, ImageContents& out) {
  if (cache) cache->store(out, out.warnings);
}

Result<ImageContents> read_store_image(const StoreImage& img, const FactsCache* cache) {
  std::vector<std::string> warnings;
  std::vector<std::string> names;
  for (size_t i = 0; i < img.layer_dirs.size(); ++i)
    names.push_back(img.layer_digests[i].empty() ? img.layer_dirs[i] : img.layer_digests[i]);
  if (auto kept = cached(cache, "sha256:" + img.id, img.ref, img.ref, names, warnings))
    return *kept;
  ImageContents out;
  out.warnings = std::move(warnings);
  out.source = img.ref;
  out.id = "sha256:" + img.id;
  out.ref = img.ref;
  auto config = nlohmann::json::parse(img.config, nullptr, false);
  if (config.is_discarded()) return bad_input(cat({img.ref, ": the image's config is not JSON"}));
  read_config(config, out);
  Budget budget;
  for (size_t i = 0; i < img.layer_dirs.size(); ++i) {
    out.layers.push_back(img.layer_digests[i].empty() ? img.layer_dirs[i] : img.layer_digests[i]);
    auto what = cat({"layer ", std::to_string(i + 1), " (", out.layers.back(), ")"});
    auto members = open_store_layer(img.layer_dirs[i], what);
    LayerChanges changes;
    if (auto e = walk_layer(*members, i, changes, budget)) return *e;
    apply_changes(out.files, changes);
    ++out.layers_read;
  }
  keep(cache, out);
  return out;
}

}  // namespace

Result<std::optional<ImageContents>> read_stored_image(const std::string& ref,
                                                       const FactsCache* cache) {
  auto found = find_store_image(ref, containers_storage_root());
  if (!found) return found.error();
  if (!*found) {
    auto docker = docker_data_root();
    if (!docker) return docker.error();
    found = find_docker_image(ref, *docker);
    if (!found) return found.error();
  }
  if (!*found) return std::optional<ImageContents>();
  auto read = read_store_image(**found, cache);
  if (!read) return read.error();
  return std::optional<ImageContents>(std::move(*read));
}

std::string stores_searched() {
  auto docker = docker_data_root();
  return cat({"containers-storage (", containers_storage_root(), ") and the Docker store (",
              docker ? *docker : docker.error().message, ")"});
}

Result<ImageContents> read_image(const std::string& path, const FactsCache* cache) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    auto found = read_stored_image(path, cache);
    if (!found) return found.error();
    if (!*found)
      return bad_input(cat({path,
                            ": no such image archive or layout directory, and no such "
                            "image in ",
                            stores_searched()}));
    return std::move(**found);
  }
  auto store = ImageStore::open(path);
  if (!store) return store.error();
  auto plan = plan_image(*store);
  if (!plan) return plan.error();
  std::vector<std::string> warnings;
  std::vector<std::string> names;
  for (const auto& l : plan->layers) names.push_back(l.digest);
  if (auto kept = cached(cache, plan->id, path, plan->ref, names, warnings)) return *kept;
  ImageContents out;
  out.warnings = std::move(warnings);
  out.source = path;
  out.id = plan->id;
  out.ref = plan->ref;
  read_config(plan->config, out);
  Budget budget;
  for (size_t i = 0; i < plan->layers.size(); ++i) {
    out.layers.push_back(plan->layers[i].digest);
    LayerChanges changes;
    if (auto e = read_layer(*store, plan->layers[i], i, changes, budget)) return *e;
    apply_changes(out.files, changes);
    ++out.layers_read;
  }
  keep(cache, out);
  return out;
}

}  // namespace anygpu::image
