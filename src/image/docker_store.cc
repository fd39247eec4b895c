#include "image/docker_store.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "util/env_vars.h"
#include "util/regular_file.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace anygpu::image {

namespace {

bool is_digest(std::string_view s) {
  return s.size() == 71 && s.starts_with("sha256:") && is_lower_hex(s.substr(7));
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The image id a reference or id prefix names, "" when none.
Result<std::string> lookup(const std::string& ref, const std::string& images) {
  if (ref.size() >= 12 && ref.size() <= 64 && is_lower_hex(ref)) {
    std::string found;
    if (DIR* d = ::opendir((images + "/imagedb/content/sha256").c_str())) {
      while (const dirent* e = ::readdir(d)) {
        std::string_view name = e->d_name;
        if (name.size() == 64 && is_lower_hex(name) && name.starts_with(ref)) found = name;
      }
      ::closedir(d);
    }
    if (!found.empty()) return found;
  }
  auto familiar = docker_familiar(ref);
  std::string index = images + "/repositories.json";
  if (!familiar || !exists(index)) return std::string();
  auto repos = read_store_json(index);
  if (!repos) return repos.error();
  auto all = repos->find("Repositories");
  if (!repos->is_object() || all == repos->end() || !all->is_object())
    return bad_input(cat({index, ": expected {\"Repositories\": {…}}"}));
  auto repo = all->find(familiar->name);
  if (repo == all->end() || !repo->is_object()) return std::string();
  auto id = repo->find(familiar->key);
  if (id == repo->end()) return std::string();
  if (!id->is_string() || !is_digest(id->get<std::string>()))
    return bad_input(cat({index, ": ", familiar->key, ": expected sha256:<64 hex digits>"}));
  return id->get<std::string>().substr(7);
}

}  // namespace

Result<std::string> docker_data_root() {
  auto root = read_env("ANYGPU_DOCKER_ROOT");
  if (!root) return root.error();
  if (*root) return (*root)->text;
  if (auto text = read_regular_file("/etc/docker/daemon.json", 1 << 20, "Docker configuration")) {
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_object())
      if (auto it = j.find("data-root"); it != j.end() && it->is_string() && !it->empty())
        return it->get<std::string>();
  }
  return std::string("/var/lib/docker");
}

std::optional<DockerRef> docker_familiar(const std::string& ref) {
  if (ref.empty() || ref.size() > 512) return std::nullopt;
  for (char c : ref)
    if (c <= ' ' || c >= 0x7f) return std::nullopt;
  std::string r = ref;
  for (std::string_view prefix :
       {"docker.io/library/", "index.docker.io/library/", "docker.io/", "index.docker.io/"})
    if (r.starts_with(prefix) && r.size() > prefix.size()) {
      r = r.substr(prefix.size());
      break;
    }
  auto at = r.find('@');
  std::string path = r.substr(0, at);
  auto slash = path.rfind('/');
  auto colon = path.find(':', slash == std::string::npos ? 0 : slash);
  std::string name = path.substr(0, colon);
  if (name.empty() || name.front() == '/' || name.back() == '/') return std::nullopt;
  if (at != std::string::npos) {
    // A reference with a digest is stored by name@digest alone (moby favorDigest).
    std::string digest = r.substr(at + 1);
    if (!is_digest(digest)) return std::nullopt;
    return DockerRef{name, cat({name, "@", digest})};
  }
  std::string tag = colon == std::string::npos ? "latest" : path.substr(colon + 1);
  if (tag.empty()) return std::nullopt;
  return DockerRef{name, cat({name, ":", tag})};
}

Result<std::optional<StoreImage>> find_docker_image(const std::string& ref,
                                                    const std::string& data_root) {
  using Found = std::optional<StoreImage>;
  const std::string images = data_root + "/image/overlay2";
  if (!exists(images)) return Found();
  auto id = lookup(ref, images);
  if (!id) return id.error();
  if (id->empty()) return Found();
  StoreImage out;
  out.id = *id;
  out.ref = ref;
  auto path = cat({images, "/imagedb/content/sha256/", *id});
  auto text = read_store_file(path);
  if (!text) return text.error();
  if (sha256_hex(*text) != *id)
    return bad_input(cat({path, ": content digest sha256:", sha256_hex(*text),
                          " does not match the image id ", *id}));
  auto config = nlohmann::json::parse(*text, nullptr, false);
  const nlohmann::json* diffs = nullptr;
  if (config.is_object())
    if (auto rootfs = config.find("rootfs"); rootfs != config.end() && rootfs->is_object())
      if (auto d = rootfs->find("diff_ids"); d != rootfs->end() && d->is_array()) diffs = &*d;
  if (!diffs) return bad_input(cat({path, ": no rootfs.diff_ids"}));
  out.config = std::move(*text);
  std::string chain;
  for (const auto& d : *diffs) {
    if (!d.is_string() || !is_digest(d.get<std::string>()))
      return bad_input(cat({path, ": rootfs.diff_ids: expected sha256:<64 hex digits>"}));
    const std::string diff = d.get<std::string>();
    chain = chain.empty() ? diff : "sha256:" + sha256_hex(cat({chain, " ", diff}));
    auto layer = cat({images, "/layerdb/sha256/", chain.substr(7)});
    auto recorded = read_regular_file(layer + "/diff", 128, "layer diff id");
    if (!recorded) return recorded.error();
    if (std::string(trim(*recorded)) != diff)
      return bad_input(
          cat({layer, "/diff: ", std::string(trim(*recorded)), ", not the config's ", diff}));
    auto cache = read_regular_file(layer + "/cache-id", 128, "layer cache id");
    if (!cache) return cache.error();
    std::string dir(trim(*cache));
    if (dir.empty() || dir.size() > 64 || !is_lower_hex(dir))
      return bad_input(cat({layer, "/cache-id: expected the overlay2 directory's hex id"}));
    out.layer_dirs.push_back(cat({data_root, "/overlay2/", dir, "/diff"}));
    out.layer_digests.push_back(diff);
  }
  return Found(std::move(out));
}

}  // namespace anygpu::image
