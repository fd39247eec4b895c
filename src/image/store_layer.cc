#include "image/store_layer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "util/regular_file.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace anygpu::image {

namespace fs = std::filesystem;

namespace {

std::string jstr(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The names `ref` may be stored under, as podman resolves a short name.
std::vector<std::string> name_candidates(const std::string& ref) {
  auto slash = ref.rfind('/');
  bool tagged = ref.find(':', slash == std::string::npos ? 0 : slash) != std::string::npos ||
                ref.find('@') != std::string::npos;
  std::string full = tagged ? ref : ref + ":latest";
  return {full, "localhost/" + full, "docker.io/library/" + full, "docker.io/" + full};
}

bool is_opaque(const std::string& path) {
  char v[2] = {};
  for (const char* name : {"trusted.overlay.opaque", "user.overlay.opaque"})
    if (::lgetxattr(path.c_str(), name, v, sizeof v) == 1 && v[0] == 'y') return true;
  return false;
}

class StoreLayer : public LayerMembers {
 public:
  StoreLayer(std::string dir, std::string what) : dir_(std::move(dir)), what_(std::move(what)) {}

  Result<std::optional<TarMember>> next() override {
    file_.reset();
    if (pending_) return std::optional<TarMember>(std::exchange(pending_, std::nullopt));
    std::error_code ec;
    if (!started_) {
      it_ = fs::recursive_directory_iterator(dir_, ec);
      started_ = true;
    } else if (it_ != fs::recursive_directory_iterator()) {
      it_.increment(ec);
    }
    if (ec) return bad_input(cat({what_, ": ", dir_, ": ", ec.message()}));
    if (it_ == fs::recursive_directory_iterator()) return std::optional<TarMember>();
    return member(it_->path().string());
  }

  Result<size_t> read(void* out, size_t n) override {
    return file_ ? file_->read(out, n) : Result<size_t>(size_t{0});
  }
  const std::string& what() const override { return what_; }

 private:
  Result<std::optional<TarMember>> member(const std::string& path) {
    TarMember m;
    m.path = path.substr(dir_.size() + 1);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
      return bad_input(cat({what_, ": ", path, ": cannot be read"}));
    auto parent = m.path.rfind('/') == std::string::npos ? std::string()
                                                         : m.path.substr(0, m.path.rfind('/'));
    auto base = m.path.substr(parent.empty() ? 0 : parent.size() + 1);
    auto prefixed = [&](const std::string& name) {
      return parent.empty() ? name : cat({parent, "/", name});
    };
    if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
      m.path = prefixed(".wh." + base);  // overlay's whiteout
      m.kind = TarMember::Kind::other;
    } else if (S_ISDIR(st.st_mode)) {
      m.kind = TarMember::Kind::dir;
      if (is_opaque(path))
        pending_ = TarMember{TarMember::Kind::other, m.path + "/.wh..wh..opq", "", 0};
    } else if (S_ISLNK(st.st_mode)) {
      m.kind = TarMember::Kind::symlink;
      std::error_code ec;
      m.link = fs::read_symlink(path, ec).string();
      if (!link_stays_inside(m.path, m.link))
        return bad_input(
            cat({what_, ": symlink '", m.path, "' -> '", m.link, "' leaves the image's root"}));
    } else if (S_ISREG(st.st_mode)) {
      m.kind = TarMember::Kind::file;
      m.size = static_cast<uint64_t>(st.st_size);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
      if (fd >= 0) {
        ::close(fd);
        auto f = OpenFile::open(path);
        if (!f) return f.error();
        file_ = std::make_unique<FileRange>(*f, 0, (*f)->size());
      }
    }
    return std::optional<TarMember>(std::move(m));
  }

  std::string dir_, what_;
  bool started_ = false;
  fs::recursive_directory_iterator it_;
  std::optional<TarMember> pending_;
  std::unique_ptr<FileRange> file_;
};

Result<std::vector<std::string>> layer_chain(const std::string& graphroot, std::string top,
                                             std::vector<std::string>* digests) {
  auto layers = read_store_json(graphroot + "/overlay-layers/layers.json");
  if (!layers) return layers.error();
  if (!layers->is_array())
    return bad_input(cat({graphroot, "/overlay-layers/layers.json: expected a list"}));
  std::vector<std::string> chain;
  while (!top.empty()) {
    const nlohmann::json* found = nullptr;
    for (const auto& l : *layers)
      if (l.is_object() && jstr(l, "id") == top) found = &l;
    if (!found || chain.size() > 1000)
      return bad_input(cat({graphroot, "/overlay-layers/layers.json: no layer ", top}));
    chain.insert(chain.begin(), graphroot + "/overlay/" + top + "/diff");
    digests->insert(digests->begin(), jstr(*found, "diff-digest"));
    top = jstr(*found, "parent");
  }
  return chain;
}

}  // namespace

// A store file read whole, sized by the file (not by the cap: images.json may be large on a
// busy host, but the cap must not cost its size in memory each time).
Result<std::string> read_store_file(const std::string& path) {
  auto file = OpenFile::open(path);
  if (!file) return file.error();
  if ((*file)->size() > kMaxStoreJson)
    return bad_input(cat({path, ": ", std::to_string((*file)->size()), " bytes (limit ",
                          std::to_string(kMaxStoreJson >> 20), " MiB)"}));
  std::string text(static_cast<size_t>((*file)->size()), '\0');
  FileRange in(*file, 0, (*file)->size());
  auto r = read_exact(in, text.data(), text.size(), path);
  if (!r) return r.error();
  return text;
}

Result<nlohmann::json> read_store_json(const std::string& path) {
  auto text = read_store_file(path);
  if (!text) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return bad_input(cat({path, ": not valid JSON"}));
  return j;
}

std::string base64_encode(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v =
        uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string containers_storage_root() {
  const char* conf = std::getenv("CONTAINERS_STORAGE_CONF");
  std::string path = conf && *conf ? conf : "/etc/containers/storage.conf";
  if (auto text = read_regular_file(path, 1 << 20, "containers-storage configuration")) {
    for (auto line : split_lines(*text)) {
      auto t = trim(line);
      if (t.rfind("graphroot", 0) != 0) continue;
      auto eq = t.find('=');
      if (eq == std::string_view::npos) continue;
      auto v = std::string(trim(t.substr(eq + 1)));
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') return v.substr(1, v.size() - 2);
    }
  }
  if (::geteuid() == 0) return "/var/lib/containers/storage";
  const char* xdg = std::getenv("XDG_DATA_HOME");
  if (xdg && *xdg) return cat({xdg, "/containers/storage"});
  const char* home = std::getenv("HOME");
  return cat({home ? home : "", "/.local/share/containers/storage"});
}

Result<std::optional<StoreImage>> find_store_image(const std::string& ref,
                                                   const std::string& graphroot) {
  auto index = graphroot + "/overlay-images/images.json";
  struct stat st {};
  if (::stat(index.c_str(), &st) != 0) return std::optional<StoreImage>();
  auto images = read_store_json(index);
  if (!images) return images.error();
  if (!images->is_array()) return bad_input(cat({index, ": expected a list"}));
  auto candidates = name_candidates(ref);
  bool hex_ref =
      ref.size() >= 12 && ref.size() <= 64 && std::all_of(ref.begin(), ref.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
      });
  for (const auto& img : *images) {
    if (!img.is_object()) continue;
    auto id = jstr(img, "id");
    std::string name;
    if (hex_ref && id.rfind(ref, 0) == 0) name = ref;
    auto names = img.find("names");
    if (name.empty() && names != img.end() && names->is_array())
      for (const auto& n : *names)
        for (const auto& c : candidates)
          if (name.empty() && n.is_string() && n.get<std::string>() == c) name = c;
    if (name.empty()) continue;
    if (id.size() != 64) return bad_input(cat({index, ": image with a malformed id"}));
    StoreImage out;
    out.id = id;
    out.ref = name;
    auto cfg = cat({graphroot, "/overlay-images/", id, "/=", base64_encode("sha256:" + id)});
    auto text = read_store_file(cfg);
    if (!text) return text.error();
    if (sha256_hex(*text) != id)
      return bad_input(cat({cfg, ": content digest sha256:", sha256_hex(*text),
                            " does not match the image id ", id}));
    out.config = std::move(*text);
    auto chain = layer_chain(graphroot, jstr(img, "layer"), &out.layer_digests);
    if (!chain) return chain.error();
    out.layer_dirs = std::move(*chain);
    return std::optional<StoreImage>(std::move(out));
  }
  return std::optional<StoreImage>();
}

std::unique_ptr<LayerMembers> open_store_layer(const std::string& dir, std::string what) {
  return std::make_unique<StoreLayer>(dir, std::move(what));
}

}  // namespace anygpu::image
