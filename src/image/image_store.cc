#include "image/image_store.h"

#include <sys/stat.h>
#include <sys/utsname.h>

#include <cctype>

#include "image/tar_reader.h"
#include "util/regular_file.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace anygpu::image {

namespace {

bool is_hex64(std::string_view s) {
  return s.size() == 64 && is_lower_hex(s);
}

// "sha256:<hex>" -> "<hex>"; an error naming `where` otherwise.
Result<std::string> sha256_of_digest(const std::string& digest, const std::string& where) {
  if (digest.rfind("sha256:", 0) != 0)
    return bad_input(cat({where, ": digest '", digest, "' is not sha256 (anygpu checks sha256)"}));
  auto hex = digest.substr(7);
  if (!is_hex64(hex)) return bad_input(cat({where, ": malformed digest '", digest, "'"}));
  return hex;
}

Result<nlohmann::json> parse_json(const std::string& text, const std::string& where) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return bad_input(cat({where, ": not valid JSON"}));
  return j;
}

std::string json_string(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The blob named by an OCI descriptor, with its digest checked on read.
Result<std::pair<std::string, std::string>> descriptor_blob(const nlohmann::json& d,
                                                            const std::string& where) {
  if (!d.is_object()) return bad_input(cat({where, ": descriptor is not an object"}));
  auto digest = json_string(d, "digest");
  auto hex = sha256_of_digest(digest, where);
  if (!hex) return hex.error();
  return std::make_pair("blobs/sha256/" + *hex, *hex);
}

Result<std::string> read_checked(const ImageStore& store, const std::string& member,
                                 const std::string& hex) {
  auto text = store.read_small(member);
  if (!text) return text.error();
  auto got = sha256_hex(*text);
  if (got != hex)
    return bad_input(cat({store.path(), ": ", member, ": content digest sha256:", got,
                          " does not match its name sha256:", hex}));
  return text;
}

std::string host_goarch() {
  struct utsname u {};
  ::uname(&u);
  std::string m = u.machine;
  if (m == "x86_64") return "amd64";
  if (m == "aarch64") return "arm64";
  return m;
}

// The manifest descriptor of an index for this machine: linux/<arch>, else the first.
Result<nlohmann::json> pick_manifest(const nlohmann::json& index, const std::string& where) {
  auto it = index.find("manifests");
  if (it == index.end() || !it->is_array() || it->empty())
    return bad_input(cat({where, ": no manifests"}));
  auto arch = host_goarch();
  for (const auto& m : *it) {
    auto p = m.is_object() ? m.find("platform") : m.end();
    if (p != m.end() && p->is_object() && json_string(*p, "os") == "linux" &&
        json_string(*p, "architecture") == arch)
      return m;
  }
  return (*it)[0];
}

std::string ref_of(const nlohmann::json& descriptor) {
  auto a = descriptor.find("annotations");
  if (a == descriptor.end() || !a->is_object()) return "";
  auto name = json_string(*a, "io.containerd.image.name");
  return name.empty() ? json_string(*a, "org.opencontainers.image.ref.name") : name;
}

Result<nlohmann::json> load_config(const ImageStore& store, const std::string& member,
                                   const std::string& hex, ImagePlan& plan) {
  auto text = read_checked(store, member, hex);
  if (!text) return text.error();
  plan.id = "sha256:" + hex;
  return parse_json(*text, cat({store.path(), ": ", member}));
}

// config.rootfs.diff_ids, one per layer.
std::optional<Error> attach_diff_ids(ImagePlan& plan, const std::string& where) {
  auto rootfs = plan.config.find("rootfs");
  if (rootfs == plan.config.end() || !rootfs->is_object()) return std::nullopt;
  auto ids = rootfs->find("diff_ids");
  if (ids == rootfs->end() || !ids->is_array()) return std::nullopt;
  if (ids->size() != plan.layers.size())
    return bad_input(cat({where, ": the config lists ", std::to_string(ids->size()),
                          " diff_ids for ", std::to_string(plan.layers.size()), " layers"}));
  for (size_t i = 0; i < ids->size(); ++i) {
    if (!(*ids)[i].is_string()) return bad_input(cat({where, ": diff_ids holds a non-string"}));
    auto hex = sha256_of_digest((*ids)[i].get<std::string>(), where + ": config");
    if (!hex) return hex.error();
    plan.layers[i].diff_sha = *hex;
  }
  return std::nullopt;
}

Result<ImagePlan> plan_docker_archive(const ImageStore& store) {
  auto where = cat({store.path(), ": manifest.json"});
  auto text = store.read_small("manifest.json");
  if (!text) return text.error();
  auto j = parse_json(*text, where);
  if (!j) return j.error();
  if (!j->is_array() || j->empty() || !(*j)[0].is_object())
    return bad_input(cat({where, ": expected a list of images"}));
  const auto& m = (*j)[0];
  ImagePlan plan;
  auto config = json_string(m, "Config");
  auto cfg_text = store.read_small(config);
  if (!cfg_text) return cfg_text.error();
  // The config's name holds its digest ("blobs/sha256/<hex>" or "<hex>.json"); check it.
  auto hex = sha256_hex(*cfg_text);
  auto base = config.substr(config.rfind('/') == std::string::npos ? 0 : config.rfind('/') + 1);
  if (base.size() >= 64 && is_hex64(base.substr(0, 64)) && base.substr(0, 64) != hex)
    return bad_input(cat(
        {store.path(), ": ", config, ": content digest sha256:", hex, " does not match its name"}));
  plan.id = "sha256:" + hex;
  auto cfg = parse_json(*cfg_text, cat({store.path(), ": ", config}));
  if (!cfg) return cfg.error();
  plan.config = std::move(*cfg);
  auto tags = m.find("RepoTags");
  if (tags != m.end() && tags->is_array() && !tags->empty() && (*tags)[0].is_string())
    plan.ref = (*tags)[0].get<std::string>();
  auto layers = m.find("Layers");
  if (layers == m.end() || !layers->is_array()) return bad_input(cat({where, ": no Layers"}));
  for (const auto& l : *layers) {
    if (!l.is_string()) return bad_input(cat({where, ": Layers holds a non-string"}));
    LayerPlan lp;
    lp.member = l.get<std::string>();
    auto leaf =
        lp.member.substr(lp.member.rfind('/') == std::string::npos ? 0 : lp.member.rfind('/') + 1);
    // Docker >= 25 names a layer blobs/sha256/<hex>, podman <hex>.tar: both its digest.
    if (leaf.size() >= 64 && is_hex64(leaf.substr(0, 64)) &&
        (leaf.size() == 64 || leaf.substr(64) == ".tar"))
      lp.blob_sha = leaf.substr(0, 64);
    plan.layers.push_back(std::move(lp));
  }
  if (auto e = attach_diff_ids(plan, where)) return *e;
  for (auto& l : plan.layers)
    l.digest = l.diff_sha   ? "sha256:" + *l.diff_sha
               : l.blob_sha ? "sha256:" + *l.blob_sha
                            : l.member;
  return plan;
}

Result<ImagePlan> plan_oci_layout(const ImageStore& store) {
  auto where = cat({store.path(), ": index.json"});
  auto text = store.read_small("index.json");
  if (!text) return text.error();
  auto index = parse_json(*text, where);
  if (!index) return index.error();
  auto desc = pick_manifest(*index, where);
  if (!desc) return desc.error();
  ImagePlan plan;
  plan.ref = ref_of(*desc);
  nlohmann::json manifest;
  for (int depth = 0;; ++depth) {
    auto blob = descriptor_blob(*desc, where);
    if (!blob) return blob.error();
    auto mtext = read_checked(store, blob->first, blob->second);
    if (!mtext) return mtext.error();
    auto mj = parse_json(*mtext, cat({store.path(), ": ", blob->first}));
    if (!mj) return mj.error();
    if (!mj->contains("manifests")) {
      manifest = std::move(*mj);
      break;
    }
    if (depth > 0) return bad_input(cat({where, ": an index nested more than once"}));
    desc = pick_manifest(*mj, cat({store.path(), ": ", blob->first}));
    if (!desc) return desc.error();
    if (plan.ref.empty()) plan.ref = ref_of(*desc);
  }
  auto mwhere = cat({store.path(), ": manifest"});
  if (!manifest.is_object() || !manifest.contains("config"))
    return bad_input(cat({mwhere, ": no config descriptor"}));
  auto cfg = descriptor_blob(manifest["config"], mwhere);
  if (!cfg) return cfg.error();
  auto config = load_config(store, cfg->first, cfg->second, plan);
  if (!config) return config.error();
  plan.config = std::move(*config);
  auto layers = manifest.find("layers");
  if (layers == manifest.end() || !layers->is_array())
    return bad_input(cat({mwhere, ": no layers"}));
  for (const auto& l : *layers) {
    auto blob = descriptor_blob(l, mwhere);
    if (!blob) return blob.error();
    plan.layers.push_back({blob->first, "sha256:" + blob->second, blob->second, std::nullopt});
  }
  if (auto e = attach_diff_ids(plan, mwhere)) return *e;
  return plan;
}

}  // namespace

Result<ImageStore> ImageStore::open(const std::string& path) {
  ImageStore s;
  s.path_ = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return bad_input(cat({path, ": no such image archive or layout directory"}));
  if (S_ISDIR(st.st_mode)) {
    s.is_dir_ = true;
    return s;
  }
  auto file = OpenFile::open(path);
  if (!file) return file.error();
  s.archive_ = *file;
  FileRange all(s.archive_, 0, s.archive_->size());
  TarReader tar(all, path);
  std::map<std::string, std::string> links;
  for (;;) {
    auto m = tar.next();
    if (!m) return m.error();
    if (!*m) break;
    if ((*m)->kind == TarMember::Kind::file) s.index_[(*m)->path] = {tar.consumed(), (*m)->size};
    if ((*m)->kind == TarMember::Kind::hardlink) links[(*m)->path] = (*m)->link;
    all.seek_forward(tar.remaining());
    tar.skipped_externally();
    if (tar.consumed() > s.archive_->size())
      return bad_input(cat({path, ": truncated (member '", (*m)->path, "' runs past the end)"}));
  }
  for (const auto& [from, to] : links)
    if (auto it = s.index_.find(to); it != s.index_.end()) s.index_[from] = it->second;
  if (s.index_.empty()) return bad_input(cat({path, ": an empty archive"}));
  return s;
}

bool ImageStore::has(const std::string& name) const {
  if (!is_dir_) return index_.count(name) > 0;
  struct stat st {};
  return ::stat((path_ + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Result<std::unique_ptr<FileRange>> ImageStore::open_member(const std::string& name,
                                                           uint64_t* size) const {
  auto norm = normalize_member_path(name, path_);
  if (!norm) return norm.error();
  if (is_dir_) {
    // A layout's blobs are plain files: a symbolic link would make the layout read elsewhere.
    struct stat st {};
    if (::lstat((path_ + "/" + *norm).c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      return bad_input(cat({path_, ": ", *norm, " is a symbolic link, not a blob"}));
    auto file = OpenFile::open(path_ + "/" + *norm);
    if (!file) return file.error();
    *size = (*file)->size();
    return std::make_unique<FileRange>(*file, 0, (*file)->size());
  }
  auto it = index_.find(*norm);
  if (it == index_.end()) return bad_input(cat({path_, ": no member '", name, "'"}));
  *size = it->second.size;
  return std::make_unique<FileRange>(archive_, it->second.offset, it->second.size);
}

Result<std::string> ImageStore::read_small(const std::string& name) const {
  uint64_t size = 0;
  auto in = open_member(name, &size);
  if (!in) return in.error();
  if (size > kMaxJsonBytes)
    return bad_input(cat({path_, ": ", name, " is ", std::to_string(size), " bytes (limit ",
                          std::to_string(kMaxJsonBytes >> 20), " MiB)"}));
  std::string text(static_cast<size_t>(size), '\0');
  auto r = read_exact(**in, text.data(), text.size(), cat({path_, ": ", name}));
  if (!r) return r.error();
  return text;
}

Result<ImagePlan> plan_image(const ImageStore& store) {
  if (store.has("manifest.json")) return plan_docker_archive(store);
  if (store.has("index.json")) return plan_oci_layout(store);
  return bad_input(cat({store.path(),
                        ": neither a docker/podman save archive (manifest.json) nor an OCI "
                        "layout (index.json)"}));
}

}  // namespace anygpu::image
